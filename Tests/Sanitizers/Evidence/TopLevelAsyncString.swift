// Evidence for moving VaultTestHost's and VaultCrashHost's commands into a function: Swift alone.
// In top-level async code, a string interpolated in a switch inside do/catch and passed to a
// function is still allocated at exit (LeakSanitizer: one Direct leak, the line with "resumed");
// the same code inside a function, or in a loop, is released.
import Foundation

enum Outcome { case home(String), login(Int, String) }
func resume() async -> Outcome { await Task.yield(); return .login(7, "neverSignedIn") }
func describe(_ outcome: Outcome) -> String {
    switch outcome {
    case .home(let name): return "home \(name)"
    case .login(let code, let message): return "login \(code) \(message), long enough for heap storage"
    }
}
func line(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

do {
    switch CommandLine.arguments.count {
    case 1:
        let outcome = await resume()
        line("resumed \(describe(outcome))")
        try await Task.sleep(nanoseconds: 1_000)
        line("stored")
    default:
        line("other")
    }
} catch {
    line("error: \(error)")
}
