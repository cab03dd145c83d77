import Foundation
import Logging

/// Keeps a loop that fails on every pass (the database is down) from flooding the log: the
/// first failure is logged, then at most one line per interval saying how many were held
/// back, and one line when the loop works again. A pure state machine; time is passed in.
package struct FailureLog: Sendable {
    /// What to write for one event.
    package enum Entry: Equatable, Sendable {
        /// Nothing (a failure inside the quiet interval, or success while healthy).
        case none
        /// A failure to log, with how many were held back since the last line.
        case failure(suppressed: Int)
        /// The loop works again after `failures` failures.
        case recovered(failures: Int)
    }

    /// The least time between two failure lines.
    package var interval: TimeInterval = 60
    private var lastLogged: Date?
    private var suppressed = 0
    private var failures = 0

    package init(interval: TimeInterval = 60) {
        self.interval = interval
    }

    /// Records a failure at `now`.
    package mutating func failed(at now: Date) -> Entry {
        failures += 1
        if let lastLogged, now.timeIntervalSince(lastLogged) < interval {
            suppressed += 1
            return .none
        }
        let held = suppressed
        lastLogged = now
        suppressed = 0
        return .failure(suppressed: held)
    }

    /// Records a pass that worked.
    package mutating func succeeded() -> Entry {
        guard failures > 0 else { return .none }
        let count = failures
        failures = 0
        suppressed = 0
        lastLogged = nil
        return .recovered(failures: count)
    }

    /// Writes `entry` for the loop `name`.
    package static func write(_ entry: Entry, name: String, error: (any Error)?, to logger: Logger) {
        switch entry {
        case .none: break
        case .failure(let suppressed):
            logger.error(
                "\(name) failed; retrying",
                metadata: [
                    "error": "\(String(describing: error.map { String(describing: $0) } ?? "").prefix(300))",
                    "suppressed_since_last": "\(suppressed)",
                ])
        case .recovered(let failures):
            logger.info("\(name) works again", metadata: ["failed_passes": "\(failures)"])
        }
    }
}
