// Keeps a console window from opening next to the app in Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

/// mimalloc instead of glibc's malloc, which maps and faults in afresh each of the verifier's
/// and the index writer's large short-lived buffers (`factdesk-bench verifier` and
/// `import-search` measure the difference).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    factdesk_app_lib::run();
}
