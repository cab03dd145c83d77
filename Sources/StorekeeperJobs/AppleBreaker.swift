import AppStoreServerAPI
import Foundation
import Synchronization

/// Keeps a replica from hammering Apple while the App Store Server API is away: after a call
/// fails because Apple is unavailable (5xx, 429, a timeout, a garbled answer), no job of that
/// app calls Apple again before a wait that doubles with each failure in a row (30 s up to an
/// hour) and never ends before Apple's `Retry-After`. The jobs due meanwhile are postponed to
/// the end of the wait, not failed; the first success closes the breaker.
package final class AppleBreaker: Sendable {
    private struct Away {
        package var failures: Int
        package var until: Date
    }
    private let away = Mutex([String: Away]())

    /// The longest wait between two tries while Apple stays away.
    package static let longestWait: TimeInterval = 3_600

    /// Thrown instead of calling Apple while the breaker is open.
    package struct Open: Error, CustomStringConvertible {
        package var until: Date
        package var description: String { "Apple was unavailable; the next call waits until \(until)" }
    }

    /// Whether `error` says Apple is unavailable for now, rather than refusing the request.
    package static func meansAppleAway(_ error: any Error) -> Bool {
        guard let apple = error as? AppStoreServerAPIError else { return false }
        return apple.isRetryable || apple.code == .malformedResponse
    }

    /// Throws ``Open`` if `appId`'s calls must wait.
    package func check(appId: String, now: Date) throws {
        if let until = away.withLock({ $0[appId]?.until }), until > now { throw Open(until: until) }
    }

    /// Records a call's outcome: a success closes the breaker, Apple being away opens it longer.
    package func record(appId: String, error: (any Error)?, now: Date) {
        guard let error else {
            away.withLock { _ = $0.removeValue(forKey: appId) }
            return
        }
        guard Self.meansAppleAway(error) else { return }
        let retryAfter = (error as? AppStoreServerAPIError)?.retryAfter
        away.withLock { away in
            let failures = (away[appId]?.failures ?? 0) + 1
            let wait = min(Self.longestWait, 30 * pow(2, Double(failures - 1)))
            away[appId] = Away(failures: failures, until: max(now.addingTimeInterval(wait), retryAfter ?? now))
        }
    }
}
