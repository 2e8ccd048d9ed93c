#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns terminal echo off while a person types a passphrase (`--passphrase-stdin` with no
/// pipe), so it never shows on screen or in a screen recording.
enum HiddenInput {
    /// Runs `body` with echo off when standard input is a terminal, after a prompt on stderr.
    static func withEchoOff<R>(prompt: String, _ body: () throws -> R) rethrows -> R {
        guard isatty(STDIN_FILENO) == 1 else { return try body() }
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return try body() }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        Console.write(prompt, to: STDERR_FILENO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            Console.write("\n", to: STDERR_FILENO)
        }
        return try body()
    }
}
