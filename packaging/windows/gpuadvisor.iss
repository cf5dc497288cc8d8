; Inno Setup script: Setup.exe for Windows (64-bit), with a Start-menu shortcut and an
; uninstaller. Build the app folder first, then compile this script (Inno Setup 6):
;
;   .venv\Scripts\python -m PyInstaller --noconfirm --distpath dist --workpath build\pyinstaller packaging\gpuadvisor.spec
;   "C:\Program Files (x86)\Inno Setup 6\ISCC.exe" /DAppVersion=0.1.0 packaging\windows\gpuadvisor.iss
;
; -> dist\gpuadvisor-<version>-windows-x64-setup.exe. It associates .gpuplan files with the app
; (a double-click opens the plan), for the current user or for everyone as installed. The version comes from
; gpuadvisor/__init__.py (the CI workflow passes it; see .github/workflows/package.yml).
; The installer asks whether to install for everyone (needs administrator rights) or only for
; the current user; a silent per-user install is
;   gpuadvisor-...-setup.exe /VERYSILENT /SUPPRESSMSGBOXES /CURRENTUSER

#ifndef AppVersion
  #error Pass the version: ISCC /DAppVersion=X.Y.Z gpuadvisor.iss
#endif
#ifndef SourceDir
  #define SourceDir "..\..\dist\gpuadvisor"
#endif
#define AppName "GPU Advisor"
#define GuiExe "gpuadvisor-gui.exe"
; The file type of saved plans (gpuadvisor/workspace/planfile.py: PLAN_SUFFIX) and its ProgID.
#define PlanExt ".gpuplan"
#define PlanProgId "GPUAdvisor.Plan"

[Setup]
; A fixed id: upgrades replace the previous version instead of installing beside it.
AppId={{6E0B7C3A-5D0F-4C8E-9A57-2F4B1D9C0A61}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=gpuadvisor developers
AppPublisherURL=https://example.invalid/gpuadvisor
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=gpuadvisor-{#AppVersion}-windows-x64-setup
SetupIconFile=..\..\resources\icons\gpuadvisor.ico
UninstallDisplayIcon={app}\{#GuiExe}
UninstallDisplayName={#AppName} {#AppVersion}
InfoBeforeFile=..\..\resources\licenses\NOTICE.txt
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
; Explorer refreshes its file types after install and uninstall (the .gpuplan icon and verb).
ChangesAssociations=yes

[Languages]
Name: "en"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
; The whole PyInstaller folder: gpuadvisor-gui.exe (windowed), gpuadvisor.exe (console) and
; _internal\ (Python, Qt, the catalog, translations, licence texts).
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#GuiExe}"; Comment: "Will this model train on my GPU, and how long will it take?"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#GuiExe}"; Tasks: desktopicon

[Registry]
; .gpuplan -> GPU Advisor. HKA is HKCU\Software\Classes for a per-user install and HKLM for an
; install for everyone; the uninstaller removes what it wrote (and only that).
Root: HKA; Subkey: "Software\Classes\{#PlanExt}"; ValueType: string; ValueName: ""; ValueData: "{#PlanProgId}"; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\{#PlanExt}"; ValueType: string; ValueName: "Content Type"; ValueData: "application/x-gpuadvisor-plan"; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\{#PlanExt}\OpenWithProgids"; ValueType: string; ValueName: "{#PlanProgId}"; ValueData: ""; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\{#PlanProgId}"; ValueType: string; ValueName: ""; ValueData: "GPU Advisor plan"; Flags: uninsdeletekey
Root: HKA; Subkey: "Software\Classes\{#PlanProgId}\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\{#GuiExe},0"
Root: HKA; Subkey: "Software\Classes\{#PlanProgId}\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#GuiExe}"" ""%1"""
Root: HKA; Subkey: "Software\Classes\Applications\{#GuiExe}\SupportedTypes"; ValueType: string; ValueName: "{#PlanExt}"; ValueData: ""; Flags: uninsdeletekey

[Run]
Filename: "{app}\{#GuiExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Files the app writes next to itself (none today); the user's settings, plans and probe
; history live in the user's AppData folders and are kept.
Type: filesandordirs; Name: "{app}\_internal\__pycache__"
