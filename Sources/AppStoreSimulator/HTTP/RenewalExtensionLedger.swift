import AppStoreModels
import Foundation
import Synchronization

/// What the simulated App Store remembers about renewal-date extensions: the answer to each
/// request identifier (so a repeated request is answered the same without extending twice),
/// when each subscription was extended (Apple allows two extensions per 365 days), and the
/// outcome of every mass extension.
final class RenewalExtensionLedger: Sendable {
    /// One mass extension's outcome, as its status endpoint reports it.
    struct MassExtension: Sendable {
        var productId: String
        var requestIdentifier: String
        var completeDate: Date
        var succeededCount: Int64
        var failedCount: Int64
    }

    private struct State {
        var answers: [String: ExtendRenewalDateResponse] = [:]
        var extensionDates: [String: [Date]] = [:]
        var massExtensions: [String: MassExtension] = [:]
    }

    private let state = Mutex(State())

    /// Apple's limit of extensions per subscription in any 365 days.
    static let extensionsPerYear = 2

    /// The answer already given to `requestIdentifier`, if any.
    func answer(requestIdentifier: String) -> ExtendRenewalDateResponse? {
        state.withLock { $0.answers[requestIdentifier] }
    }

    /// Keeps the answer given to `requestIdentifier`.
    func remember(_ answer: ExtendRenewalDateResponse, requestIdentifier: String) {
        state.withLock { $0.answers[requestIdentifier] = answer }
    }

    /// Whether the subscription may be extended once more at `now`.
    func mayExtend(_ originalTransactionId: String, now: Date) -> Bool {
        state.withLock { state in
            let recent = (state.extensionDates[originalTransactionId] ?? []).filter { now.timeIntervalSince($0) < 365 * 86_400 }
            return recent.count < Self.extensionsPerYear
        }
    }

    /// Records an extension of the subscription at `now`.
    func recordExtension(_ originalTransactionId: String, at now: Date) {
        state.withLock { $0.extensionDates[originalTransactionId, default: []].append(now) }
    }

    /// Records a mass extension's outcome; false when its request identifier was used before.
    func recordMassExtension(_ outcome: MassExtension) -> Bool {
        state.withLock { state in
            guard state.massExtensions[outcome.requestIdentifier] == nil else { return false }
            state.massExtensions[outcome.requestIdentifier] = outcome
            return true
        }
    }

    /// A mass extension by request identifier and product.
    func massExtension(requestIdentifier: String, productId: String) -> MassExtension? {
        state.withLock { state in
            guard let outcome = state.massExtensions[requestIdentifier], outcome.productId == productId else { return nil }
            return outcome
        }
    }
}
