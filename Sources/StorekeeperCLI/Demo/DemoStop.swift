import Synchronization

/// Set when the server stops (a signal in the live phase), so the demo loop ends with it.
final class DemoStop: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}
