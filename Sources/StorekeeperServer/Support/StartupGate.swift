import ServiceLifecycle

/// Holds background services back until the server has prepared the database.
///
/// The inbox worker and the job scheduler read tables that `beforeServerStarts` migrates; a
/// `ServiceGroup` starts every service at once, so without the gate they would race the
/// migrations on a brand-new database.
final class StartupGate: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Lets every waiting service start (and every later one start at once).
    func open() {
        continuation.yield()
        continuation.finish()
    }

    /// Returns when the gate opens, or when the task is cancelled (shutdown before start).
    func wait() async {
        for await _ in stream {}
    }

    /// Wraps `service` so it starts only once the gate has opened.
    func holding(_ service: some Service) -> some Service {
        GatedService(gate: self, service: service)
    }
}

/// A service that runs `service` after its gate opens, and not at all if shut down before.
private struct GatedService<Inner: Service>: Service {
    let gate: StartupGate
    let service: Inner

    func run() async throws {
        await gate.wait()
        guard !Task.isCancelled else { return }
        try await service.run()
    }
}
