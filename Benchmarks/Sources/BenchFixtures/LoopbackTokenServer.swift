import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A GoTrue-shaped token endpoint on 127.0.0.1 for the single-flight benchmark.
///
/// Every `POST …/token` is counted and answered, after `delay`, with a fresh access/refresh pair,
/// so the count says exactly how many refresh calls reached "the network". One thread accepts;
/// each connection is served on its own thread and closed after one response. Loopback only;
/// it stops when `stop()` is called or the process ends.
package final class LoopbackTokenServer: @unchecked Sendable {
    // Sendable: `requests` and `stopped` are only touched while holding `lock`; the socket is
    // written once in init.
    private let lock = NSLock()
    private var requests = 0
    private var stopped = false
    private let listener: Int32
    package let port: UInt16
    /// Server-side time before answering: the refresh's network latency.
    package let delay: TimeInterval

    package init(delay: TimeInterval) throws {
        self.delay = delay
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw RawDatabaseError(code: errno, message: "socket") }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw RawDatabaseError(code: errno, message: "bind/listen on 127.0.0.1")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: actual.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The auth base URL a `GoTrueRefresher` talks to.
    package var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/auth/v1")! }

    /// Token requests answered so far.
    package var requestCount: Int { lock.withLock { requests } }

    package func stop() {
        lock.withLock { stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if lock.withLock({ stopped }) { return }
                continue
            }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Read the head, then the body Content-Length announces.
        while true {
            let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            received.append(contentsOf: buffer[0..<count])
            guard let headEnd = Self.headEnd(received) else { continue }
            let head = String(decoding: received[0..<headEnd], as: UTF8.self)
            let length =
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count - (headEnd + 4) >= length { break }
        }
        let head = String(decoding: received.prefix(200), as: UTF8.self)
        let body: String
        let status: String
        if head.hasPrefix("POST ") && head.contains("/token?grant_type=refresh_token") {
            let number = lock.withLock { () -> Int in
                requests += 1
                return requests
            }
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            status = "200 OK"
            body = """
                {"access_token":"opaque-access-\(number)-\(UUID().uuidString)","token_type":"bearer","expires_in":3600,\
                "refresh_token":"v1.refresh-\(number)-\(UUID().uuidString)"}
                """
        } else {
            status = "404 Not Found"
            body = #"{"error":"not_found"}"#
        }
        let response = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let bytes = Array(response.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            sent += count
        }
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
