import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads what `import` takes on standard input: a token response of bounded size.
enum StandardInput {
    /// Larger than any token response; a bigger input is refused, not buffered without end.
    static let maximumBytes = 1 << 20

    /// Whether standard input is a terminal (nothing piped in).
    static var isTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Everything left on standard input, through `body`; the buffer (which holds tokens) is
    /// zeroed before it is released.
    static func withRemainingBytes<R>(_ body: (Data) throws -> R) throws -> R {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: maximumBytes + 1, alignment: 1)
        defer {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.deallocate()
        }
        var count = 0
        while count <= maximumBytes {
            let n = read(STDIN_FILENO, buffer.baseAddress! + count, maximumBytes + 1 - count)
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIFailure("standard input could not be read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            count += n
        }
        if count > maximumBytes { throw CLIFailure("standard input is larger than \(maximumBytes) bytes; a token response is much smaller") }
        let data = Data(bytesNoCopy: buffer.baseAddress!, count: count, deallocator: .none)
        return try body(data)
    }
}
