//! Generates the Tauri context and the permissions of the app's own commands. Declaring the
//! commands turns on access control for them: the window may call only the commands that
//! `capabilities/default.json` grants, and a command missing there is refused at run time.

include!("src/command_names.rs");

fn main() {
    println!("cargo:rerun-if-changed=src/command_names.rs");
    let manifest = tauri_build::AppManifest::new().commands(COMMANDS);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest))
        .expect("the Tauri build step failed");
}
