import Foundation

/// A test server written in Python, run from the django-oauth-toolkit virtual environment (its
/// packages: Django, jwcrypto), on 127.0.0.1 at a free port. The script prints
/// `OAUTH-SERVER READY port=<n>` when it listens and exits when its stdin closes, so a test
/// process that dies takes its servers with it.
final class PythonTestServer: @unchecked Sendable {
    // Sendable: `process` and `input` are set once here and only stopped afterwards.
    private let process: Process
    private let input: Pipe
    let port: Int

    private init(process: Process, input: Pipe, port: Int) {
        self.process = process
        self.input = input
        self.port = port
    }

    /// Starts `Tests/Servers/<script>` with `arguments` and returns once it listens.
    /// - Parameters:
    ///   - environment: added to this process's environment.
    ///   - readyWithin: seconds the server has to say it listens (Django's start is slow).
    static func start(
        _ script: String, arguments: [String] = [], environment: [String: String] = [:],
        readyWithin seconds: Double
    ) async throws -> PythonTestServer {
        let python = OAuthTestServer.packageRoot.appendingPathComponent(".build-oauth-venv/bin/python").path
        // Missing is a failure, never a skip: `make test` installs it first.
        guard FileManager.default.isExecutableFile(atPath: python) else { throw OAuthTestServerError.venvMissing(python) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [OAuthTestServer.packageRoot.appendingPathComponent("Tests/Servers/" + script).path] + arguments
        var merged = ProcessInfo.processInfo.environment
        merged["PYTHONUNBUFFERED"] = "1"
        // No __pycache__ in the source tree.
        merged["PYTHONDONTWRITEBYTECODE"] = "1"
        merged.merge(environment) { _, given in given }
        process.environment = merged
        let output = Pipe(), errors = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        // Kept open for the server's life: the server exits when it closes (this process died).
        process.standardInput = input
        let ready = ReadyLine()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            ready.append(data)
        }
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            ready.appendError(data)
        }
        process.terminationHandler = { process in ready.exited(process.terminationStatus) }
        try process.run()
        do {
            return PythonTestServer(process: process, input: input, port: try await ready.port(timeout: seconds))
        } catch {
            process.terminate()
            throw error
        }
    }

    /// `http://127.0.0.1:<port>`.
    func baseURL() throws -> URL {
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw OAuthTestServerError.notReady(seconds: 0) }
        return url
    }

    /// Stops the server and waits for it to exit.
    func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        try? input.fileHandleForWriting.close()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.process.waitUntilExit()
                continuation.resume()
            }
        }
    }
}
