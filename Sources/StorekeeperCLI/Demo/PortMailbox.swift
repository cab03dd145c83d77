import Foundation

/// Hands the bound port of each server to the task waiting for it.
actor PortMailbox {
    private var ports: [String: Result<Int, CLIFailure>] = [:]
    private var waiters: [String: CheckedContinuation<Result<Int, CLIFailure>, Never>] = [:]

    func put(_ name: String, _ port: Int) {
        deliver(name, port > 0 ? .success(port) : .failure(CLIFailure.usage("the \(name) server did not start")))
    }

    /// The server of `name` will never run: whoever waits for its port gets `message`.
    func fail(_ name: String, _ message: String) {
        deliver(name, .failure(CLIFailure.usage(message)))
    }

    private func deliver(_ name: String, _ result: Result<Int, CLIFailure>) {
        if let waiter = waiters.removeValue(forKey: name) {
            waiter.resume(returning: result)
        } else if ports[name] == nil {
            ports[name] = result
        }
    }

    func take(_ name: String) async throws -> Int {
        if let result = ports.removeValue(forKey: name) { return try result.get() }
        return try await withCheckedContinuation { waiters[name] = $0 }.get()
    }
}
