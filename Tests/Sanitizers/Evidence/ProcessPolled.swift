// Evidence for the test helpers' waitUntilExit() and for lsan.supp (formWeakReference):
// Foundation alone. `polled` waits for /bin/true by polling isRunning and leaks each Process
// (Indirect leaks: a reference cycle); `waited` also calls waitUntilExit() once it has ended and
// leaks only one 32-byte weak-reference side table allocated in Process.run (formWeakReference).
import Foundation

let mode = CommandLine.arguments.dropFirst().first ?? "waited"
for _ in 0..<3 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    while process.isRunning { usleep(1_000) }
    if mode == "waited" { process.waitUntilExit() }
}
FileHandle.standardOutput.write(Data("ran /bin/true three times, \(mode)\n".utf8))
