"""Models already on this computer, read offline: config.json files and model folders,
GGUF files (header only: architecture, sizes, each tensor's type -> exact weight bytes),
the Hugging Face cache, and Ollama's and LM Studio's model folders.

Qt-free and network-free: the command line's ``--model`` and the app both use it.
"""

from .found import LocalModel, find_local_models, hf_hub_cache
from .ggml_types import GGML_TYPES, GgmlType, ggml_type, tensor_bytes
from .gguf_file import GgufError, GgufHeader, GgufTensor, read_gguf_header
from .gguf_spec import quant_label, spec_from_gguf
from .resolve import (
    ModelFileError,
    resolve_model_ref,
    spec_from_file,
    spec_from_folder,
    spec_from_hf_cache,
    spec_from_local,
    spec_from_stdin,
)

__all__ = [
    "GGML_TYPES",
    "GgmlType",
    "GgufError",
    "GgufHeader",
    "GgufTensor",
    "LocalModel",
    "ModelFileError",
    "find_local_models",
    "ggml_type",
    "hf_hub_cache",
    "quant_label",
    "read_gguf_header",
    "resolve_model_ref",
    "spec_from_file",
    "spec_from_folder",
    "spec_from_gguf",
    "spec_from_hf_cache",
    "spec_from_local",
    "spec_from_stdin",
    "tensor_bytes",
]
