import Synchronization

/// A readers-writer lock for tasks: waiters are admitted in arrival order, so a waiting writer
/// holds back the readers that come after it and neither side starves. Waiting suspends the
/// task; no thread blocks.
public final class ReadersWriterLock: Sendable {
    private struct Waiter {
        let access: LoadGate.Access
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var readers = 0
        var writer = false
        var queue: [Waiter] = []

        /// Admits waiters from the front of the queue while they fit.
        mutating func admit() -> [CheckedContinuation<Void, Never>] {
            var admitted: [CheckedContinuation<Void, Never>] = []
            while let first = queue.first {
                switch first.access {
                case .shared where !writer:
                    readers += 1
                case .exclusive where !writer && readers == 0:
                    writer = true
                default:
                    return admitted
                }
                admitted.append(queue.removeFirst().continuation)
            }
            return admitted
        }
    }

    private let state = Mutex(State())

    public init() {}

    /// How many wait to be admitted.
    public var waitingCount: Int { state.withLock { $0.queue.count } }

    /// Returns once `access` is granted: shared beside other shared holders, exclusive alone.
    public func acquire(_ access: LoadGate.Access) async {
        await withCheckedContinuation { continuation in
            let admitted = state.withLock { state in
                state.queue.append(Waiter(access: access, continuation: continuation))
                return state.admit()
            }
            for waiter in admitted { waiter.resume() }
        }
    }

    /// Gives up `access` (held from ``acquire(_:)``) and admits whoever now fits.
    public func release(_ access: LoadGate.Access) {
        let admitted = state.withLock { state in
            switch access {
            case .shared: state.readers -= 1
            case .exclusive: state.writer = false
            }
            return state.admit()
        }
        for waiter in admitted { waiter.resume() }
    }
}
