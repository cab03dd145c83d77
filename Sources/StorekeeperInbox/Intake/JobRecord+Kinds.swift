import Foundation
import StorekeeperStore

/// Why a chain is refreshed: part of the refresh job's idempotency key, so each cause asks once.
package enum RefreshCause: Sendable, Hashable {
    /// The engine's next look at this instant.
    case look(Date)
    /// The operator extended the renewal date (the request's identifier).
    case renewalExtension(String)
    /// A V1 notification named the chain (the inbox row's idempotency key).
    case v1Notification(String)

    package var keyPart: String {
        switch self {
        case .look(let date): "\(date.millisecondsSince1970)"
        case .renewalExtension(let identifier): "extend:\(identifier)"
        case .v1Notification(let key): "v1:\(key)"
        }
    }
}

/// The jobs the server enqueues, each built in one place with its payload and idempotency key.
extension JobRecord {
    /// A ``JobKind/refreshSubscription`` of `chain`; `ledgerCount` is the chain's ledger size
    /// when a look was planned, `awaited` the instant the notification history must cover
    /// before Apple is asked (see ``RefreshPayload``).
    package static func refresh(
        appId: String, chain: String, cause: RefreshCause, runAt: Date, ledgerCount: Int? = nil, awaited: Date? = nil
    ) -> JobRecord {
        JobRecord(
            appId: appId, kind: JobKind.refreshSubscription.rawValue,
            payload: JSONEncoder.payload(
                RefreshPayload(originalTransactionId: chain, ledgerCount: ledgerCount, awaitedMillis: awaited?.millisecondsSince1970)),
            runAt: runAt, idempotencyKey: "refresh:\(chain):\(cause.keyPart)")
    }

    /// The chain a refresh job's idempotency key names (chains are digits, so the key's second
    /// field is the whole chain).
    package static func refreshedChain(key: String) -> String? {
        let parts = key.split(separator: ":", maxSplits: 2)
        guard parts.count == 3, parts[0] == "refresh" else { return nil }
        return String(parts[1])
    }

    /// A ``JobKind/transitions`` look at `chain` at `runAt` (its next state change by the clock), once per instant.
    package static func transitions(appId: String, chain: String, runAt: Date) -> JobRecord {
        JobRecord(
            appId: appId, kind: JobKind.transitions.rawValue, payload: JSONEncoder.payload(RefreshPayload(originalTransactionId: chain)),
            runAt: runAt, idempotencyKey: "transitions:\(chain):\(runAt.millisecondsSince1970)")
    }

    /// A ``JobKind/consumptionAnswer`` of the `CONSUMPTION_REQUEST` in inbox row `inboxId`, once.
    package static func consumptionAnswer(appId: String, inboxId: Int64, runAt: Date) -> JobRecord {
        JobRecord(
            appId: appId, kind: JobKind.consumptionAnswer.rawValue, payload: JSONEncoder.payload(ConsumptionPayload(inboxId: inboxId)),
            runAt: runAt, idempotencyKey: "consumption:\(inboxId)")
    }

    /// A ``JobKind/forwardNotification`` of inbox row `inboxId`, keyed by the notification: a V2
    /// notification's `notificationUUID` (Apple's repeats of it, whatever their bytes, forward
    /// nothing more), else the row's own key (a V1 body's digest).
    package static func forwardNotification(appId: String, inboxId: Int64, notificationUUID: String?, rowKey: String, runAt: Date) -> JobRecord {
        JobRecord(
            appId: appId, kind: JobKind.forwardNotification.rawValue, payload: JSONEncoder.payload(ForwardPayload(inboxId: inboxId)),
            runAt: runAt, idempotencyKey: "forward:" + (notificationUUID.map { "v2:" + $0.lowercased() } ?? rowKey))
    }

    /// A periodic job of `kind` for the period starting at `start`, once per period.
    package static func periodic(appId: String, kind: JobKind, start: Date, payload: String = "{}") -> JobRecord {
        JobRecord(
            appId: appId, kind: kind.rawValue, payload: payload, runAt: start,
            idempotencyKey: "\(kind.rawValue):\(start.millisecondsSince1970)")
    }

    /// A ``JobKind/notificationSweep`` of `window`, once per `cause`.
    package static func notificationSweep(appId: String, window: SweepPayload, runAt: Date, cause: String) -> JobRecord {
        JobRecord(
            appId: appId, kind: JobKind.notificationSweep.rawValue, payload: JSONEncoder.payload(window), runAt: runAt,
            idempotencyKey: "\(JobKind.notificationSweep.rawValue):\(cause)")
    }
}
