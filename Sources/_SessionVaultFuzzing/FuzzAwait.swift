import Foundation
import SessionVault

/// Runs async work to completion from synchronous code: libFuzzer calls each target from its
/// own (non-concurrency) thread, and the vault-open fixture is made once with the actor API an
/// app uses (`Vault.store`, `Vault.rotate`). The wait is on the task's completion, not on time.
enum FuzzAwait {
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let box = FuzzResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                box.set(.success(try await body()))
            } catch {
                box.set(.failure(error))
            }
            done.signal()
        }
        done.wait()
        return box.get() ?? .failure(FuzzSetupError(detail: "the task ended without a result"))
    }
}
