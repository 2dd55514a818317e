//! Tests of `spawn.rs`.

use super::*;
use tokio::io::AsyncReadExt;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn run(argv: &[&str], stdin: bool) -> io::Result<(ExitStatus, String)> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let program = c(argv[0]);
        let argv: Vec<CString> = argv.iter().map(|a| c(a)).collect();
        let envp = vec![c("PATH=/usr/bin:/bin"), c("GREETING=hi")];
        let cwd = c("/");
        let stderr = std::fs::File::open("/dev/null")?;
        let null = std::fs::File::open("/dev/null")?;
        let mut proc = spawn(&SpawnSpec {
            program: &program,
            argv: &argv,
            envp: &envp,
            cwd: &cwd,
            stdin_pipe: stdin,
            null: null.as_raw_fd(),
            stdout: None,
            stderr: stderr.as_raw_fd(),
            setup: None,
            exec_fd: None,
        })?;
        drop(proc.stdin.take());
        let mut out = String::new();
        proc.stdout.take().unwrap().read_to_string(&mut out).await?;
        Ok((proc.wait().await?, out))
    })
}

#[test]
fn a_process_gets_its_arguments_environment_and_directory() {
    let (status, out) = run(
        &["/bin/sh", "-c", "echo \"$0 $1 $GREETING $(pwd)\"", "a", "b"],
        false,
    )
    .unwrap();
    assert!(status.success());
    assert_eq!(out, "a b hi /\n");
}

#[test]
fn exit_codes_and_signals_come_back() {
    let (status, _) = run(&["/bin/sh", "-c", "exit 3"], false).unwrap();
    assert_eq!(status.code(), Some(3));
    let (status, _) = run(&["/bin/sh", "-c", "kill -9 $$"], true).unwrap();
    assert_eq!(status.signal(), Some(9));
    // SIGPIPE is back to its default in the child, though Rust ignores it here.
    let (status, out) = run(&["/bin/sh", "-c", "kill -PIPE $$; echo survived"], false).unwrap();
    assert_eq!((status.signal(), out.as_str()), (Some(libc::SIGPIPE), ""));
}

#[test]
fn a_missing_program_is_an_error_not_a_process() {
    let err = run(&["/nonexistent/bot"], false).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::NotFound);
}
