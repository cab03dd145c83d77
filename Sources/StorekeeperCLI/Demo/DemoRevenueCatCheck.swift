import Foundation
import StorekeeperEventsOut
import StorekeeperStore

/// The demo's check of RevenueCat-format webhooks: each body against the fields RevenueCat
/// documents ("Event Types and Fields": the common and subscription lifecycle fields, their
/// types, the fields only some types carry), and each delivery against the Storekeeper event it
/// stands for (the same event received at `/webhook`: the id derived from it, the type mapped
/// from it, its customer, chain, transaction and product).
struct DemoRevenueCatCheck {
    /// What the demo's receiver kept of one RevenueCat-format delivery.
    struct Received: Sendable {
        var id: String
        var type: String
        var appUserId: String?
        var productId: String?
        var newProductId: String?
        var transactionId: String?
        var originalTransactionId: String?
        var isTrialConversion: Bool?
    }

    enum Kind: String { case string, integer, double, boolean, array, map }

    /// RevenueCat's documented fields: name, JSON type, whether `null` is allowed, and the
    /// types the field belongs to only.
    static let fields: [(name: String, kind: Kind, nullable: Bool, onlyFor: Set<String>?)] = [
        ("type", .string, false, nil), ("id", .string, false, nil), ("app_id", .string, false, nil), ("event_timestamp_ms", .integer, false, nil),
        ("app_user_id", .string, false, nil), ("original_app_user_id", .string, false, nil), ("aliases", .array, false, nil),
        ("subscriber_attributes", .map, false, nil), ("product_id", .string, false, nil), ("entitlement_ids", .array, true, nil),
        ("entitlement_id", .string, true, nil), ("period_type", .string, false, nil), ("purchased_at_ms", .integer, false, nil),
        ("expiration_at_ms", .integer, true, nil), ("store", .string, false, nil), ("environment", .string, false, nil),
        ("presented_offering_id", .string, true, nil), ("price", .double, true, nil), ("currency", .string, true, nil),
        ("price_in_purchased_currency", .double, true, nil), ("tax_percentage", .double, true, nil), ("commission_percentage", .double, true, nil),
        ("takehome_percentage", .double, false, nil), ("transaction_id", .string, false, nil), ("original_transaction_id", .string, false, nil),
        ("is_family_share", .boolean, false, nil), ("country_code", .string, true, nil), ("offer_code", .string, true, nil),
        ("is_trial_conversion", .boolean, false, ["RENEWAL"]), ("cancel_reason", .string, false, ["CANCELLATION"]),
        ("expiration_reason", .string, false, ["EXPIRATION"]), ("new_product_id", .string, false, ["PRODUCT_CHANGE"]),
        ("grace_period_expiration_at_ms", .integer, true, ["BILLING_ISSUE"]),
    ]

    static let types: Set<String> = [
        "TEST", "INITIAL_PURCHASE", "NON_RENEWING_PURCHASE", "RENEWAL", "PRODUCT_CHANGE", "CANCELLATION", "BILLING_ISSUE", "SUBSCRIBER_ALIAS",
        "SUBSCRIPTION_PAUSED", "UNCANCELLATION", "TRANSFER", "SUBSCRIPTION_EXTENDED", "EXPIRATION", "TEMPORARY_ENTITLEMENT_GRANT",
        "INVOICE_ISSUANCE", "VIRTUAL_CURRENCY_TRANSACTION",
    ]
    static let reasons: Set<String> = ["UNSUBSCRIBE", "BILLING_ERROR", "DEVELOPER_INITIATED", "PRICE_INCREASE", "CUSTOMER_SUPPORT", "UNKNOWN"]

    /// The delivery in `body`, or what is wrong with it by RevenueCat's documentation.
    static func read(_ body: Data) -> Result<Received, DemoRevenueCatProblem> {
        guard let top = try? JSONDecoder().decode([String: Value].self, from: body) else { return .failure(.init("the body is not a JSON object")) }
        guard top["api_version"] == .string("1.0") else { return .failure(.init("api_version is not \"1.0\"")) }
        guard case .object(let event)? = top["event"] else { return .failure(.init("the body has no event object")) }
        guard case .string(let type)? = event["type"], types.contains(type) else { return .failure(.init("an undocumented type")) }
        for field in fields {
            let applies = field.onlyFor?.contains(type) ?? true
            guard let value = event[field.name] else {
                if applies { return .failure(.init("\(type) without \(field.name)")) }
                continue
            }
            guard applies else { return .failure(.init("\(type) with \(field.name), documented for \(field.onlyFor!.sorted()) only")) }
            if value == .null {
                if !field.nullable { return .failure(.init("\(type) with \(field.name) null")) }
            } else if !value.matches(field.kind) {
                return .failure(.init("\(type) with \(field.name) not a JSON \(field.kind.rawValue)"))
            }
        }
        for name in ["cancel_reason", "expiration_reason"] {
            if case .string(let reason)? = event[name], !reasons.contains(reason) { return .failure(.init("\(type) with \(name) \(reason)")) }
        }
        guard case .string(let id)? = event["id"], UUID(uuidString: id)?.uuidString == id else {
            return .failure(.init("\(type) whose id is not an upper-case UUID"))
        }
        func text(_ name: String) -> String? { if case .string(let value)? = event[name] { value } else { nil } }
        var trial: Bool?
        if case .bool(let value)? = event["is_trial_conversion"] { trial = value }
        return .success(
            Received(
                id: id, type: type, appUserId: text("app_user_id"), productId: text("product_id"), newProductId: text("new_product_id"),
                transactionId: text("transaction_id"), originalTransactionId: text("original_transaction_id"), isTrialConversion: trial))
    }

    /// Compares the RevenueCat-format deliveries with the Storekeeper events the backend got:
    /// one each for every event with a RevenueCat counterpart, none for the others, none extra
    /// (the refused customer's are left out, as their Storekeeper events never arrive).
    static func compare(receiver: DemoReceiver) -> (checked: Int, mismatches: [String], counts: [String: Int]) {
        let deliveries = receiver.revenueCatEvents
        var byId: [String: Received] = [:]
        for delivery in deliveries { byId[delivery.id] = delivery }
        var mismatches = receiver.revenueCatProblems.map { "RevenueCat-format delivery: \($0)" }
        var checked = 0
        var expected: Set<String> = []
        for event in receiver.events where event.customerId != DemoWorld.failingCustomer {
            let followsTrial = event.type == EventType.subscriptionStarted.rawValue
            let plain = RevenueCatWebhook.type(of: event.type, followsTrial: false)
            let id = RevenueCatWebhook.eventId(event.id)
            guard plain != nil else {
                if byId[id] != nil { mismatches.append("\(event.type) \(event.id) has no RevenueCat counterpart but was sent") }
                continue
            }
            expected.insert(id)
            checked += 1
            guard let delivery = byId[id] else {
                mismatches.append("\(event.type) \(event.id): no RevenueCat-format delivery")
                continue
            }
            let types = [plain, followsTrial ? RevenueCatWebhook.type(of: event.type, followsTrial: true) : nil].compactMap { $0 }
            var wrong: [String] = []
            if !types.contains(delivery.type) { wrong.append("type \(delivery.type)") }
            if delivery.type == "RENEWAL", delivery.isTrialConversion != (event.type == EventType.subscriptionStarted.rawValue) {
                wrong.append("is_trial_conversion \(delivery.isTrialConversion.map(String.init) ?? "absent")")
            }
            if let customer = event.customerId, delivery.appUserId != customer { wrong.append("app_user_id \(delivery.appUserId ?? "-")") }
            if delivery.originalTransactionId != event.originalTransactionId { wrong.append("original_transaction_id") }
            let product = delivery.type == "PRODUCT_CHANGE" ? delivery.newProductId : delivery.productId
            if product != event.productId { wrong.append("product \(product ?? "-") for \(event.productId ?? "-")") }
            if delivery.transactionId == nil { wrong.append("no transaction_id") }
            if !wrong.isEmpty { mismatches.append("\(event.type) \(event.id) → \(wrong.joined(separator: ", "))") }
        }
        for delivery in deliveries where !expected.contains(delivery.id) && delivery.appUserId != DemoWorld.failingCustomer {
            mismatches.append("RevenueCat-format \(delivery.type) \(delivery.id) stands for no Storekeeper event the backend received")
        }
        let counts = Dictionary(grouping: deliveries, by: \.type).mapValues(\.count)
        return (checked, mismatches, counts)
    }

    /// A JSON value with its exact kind (`true` is never a number, `4.99` never an integer).
    enum Value: Decodable, Equatable {
        case null
        case bool(Bool)
        case integer(Int64)
        case double(Double)
        case string(String)
        case array([Value])
        case object([String: Value])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int64.self) {
                self = .integer(value)
            } else if let value = try? container.decode(Double.self) {
                self = .double(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([Value].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: Value].self))
            }
        }

        func matches(_ kind: Kind) -> Bool {
            switch (self, kind) {
            case (.string, .string), (.integer, .integer), (.bool, .boolean), (.array, .array), (.object, .map): true
            // A number without a fraction (`0`, `-10`) is a double too.
            case (.double, .double), (.integer, .double): true
            default: false
            }
        }
    }
}

/// Why a RevenueCat-format delivery does not follow RevenueCat's documentation.
struct DemoRevenueCatProblem: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
