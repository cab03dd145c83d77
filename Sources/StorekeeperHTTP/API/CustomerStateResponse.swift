import Foundation
import Hummingbird
import StorekeeperStore
import SubscriptionEngine
import Synchronization

/// The customer as the API shows it: the engine's state at the request's instant.
package struct CustomerStateResponse: ResponseEncodable {
    package var customerId: String
    package var instant: Date
    package var entitlements: [Entitlement]
    package var subscriptions: [SubscriptionState]
    package var nonConsumables: [Entitlement]
    package var consumables: [ConsumablePurchase]
    package var eligibility: [String: GroupEligibility]
    package var originalTransactionIds: [String]
    /// Entitlements the other apps of the project grant (also in ``entitlements``).
    package var sharedEntitlements: [SharedEntitlement]?

    package init(customerId: String, state: CustomerState, aliases: [CustomerAlias]) {
        self.customerId = customerId
        instant = state.instant
        entitlements = state.entitlements
        subscriptions = state.subscriptions
        nonConsumables = state.entitlements.filter { $0.productType == .nonConsumable }
        consumables = state.consumables
        eligibility = state.eligibility
        originalTransactionIds = aliases.filter { $0.kind == .originalTransactionId }.map(\.value)
    }
}

/// One event of a customer's timeline.
package struct EventResponse: Encodable, Sendable {
    package var id: Int64?
    package var type: String
    package var occurredAt: Date
    package var originalTransactionId: String?
    package var details: EventDetails

    package init(_ record: EventRecord) {
        id = record.id
        type = record.type.rawValue
        occurredAt = record.occurredAt
        originalTransactionId = record.originalTransactionId
        details = record.details
    }
}

/// One inbox row as the API shows it (the raw body included, for support and testing).
package struct NotificationResponse: ResponseEncodable {
    package var id: Int64?
    package var version: Int
    package var receivedAt: Date
    package var state: String
    package var failureReason: String?
    package var notificationUUID: String?
    package var notificationType: String?
    package var subtype: String?
    package var originalTransactionId: String?
    package var signedDate: Date?
    package var environment: String?
    /// The stored body: only in the admin read of one row.
    package var body: String?

    package init(_ row: InboxNotification) {
        id = row.id
        version = row.version.rawValue
        receivedAt = row.receivedAt
        state = row.state.rawValue
        failureReason = row.failureReason
        notificationUUID = row.metadata?.notificationUUID
        notificationType = row.metadata?.notificationType
        subtype = row.metadata?.subtype
        originalTransactionId = row.metadata?.originalTransactionId
        signedDate = row.metadata?.signedDate
        environment = row.metadata?.environment
    }

    /// A stored body with a V1 `password` removed (rows stored before passwords were stripped
    /// at the door still hold one).
    package static func redactingPassword(_ body: String) -> String {
        guard body.contains("\"password\""),
            var object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        else { return body }
        object.removeValue(forKey: "password")
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// One subscription's state as the engine computes it, as the API answers it: its JSON,
/// encoded once per state (``EncodedStates``).
package struct SubscriptionResponse: ResponseGenerator {
    package let body: ByteBuffer

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONBody.response(json: body)
    }
}

/// The JSON of the subscription states answered lately, by app and chain. A status read whose
/// state is the one answered before for its chain is answered with the same bytes: encoding
/// was the largest part of a read of an unchanged chain. At most ``capacity`` chains are kept
/// (then the memory starts again).
package final class EncodedStates: Sendable {
    private let entries = Mutex<[String: (state: SubscriptionState, body: ByteBuffer)]>([:])
    package let capacity: Int

    package init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// The JSON of `state`, the state of `chain` in `appId`.
    package func body(appId: String, chain: String, state: SubscriptionState) throws -> ByteBuffer {
        let key = appId + "\u{1F}" + chain
        if let kept = entries.withLock({ $0[key] }), kept.state == state { return kept.body }
        let body = ByteBuffer(data: try JSONBody.encoder().encode(state))
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = (state, body)
        }
        return body
    }

    package var count: Int { entries.withLock { $0.count } }
}
