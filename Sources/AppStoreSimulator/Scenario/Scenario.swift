import AppStoreModels
import Foundation

/// A named lifecycle, written as a file (JSON or YAML): customers who do given things on given
/// days, and what their subscriptions must look like on given days. Tests and
/// `storekeeper simulate SCENARIO` run it against the simulator and the server.
///
/// ```yaml
/// name: trial, billing failure recovered in grace, then a refund
/// days: 80
/// customers:
///   - name: alice
///     actions:
///       - { day: 0, subscribe: premium.monthly, offer: trial }
///       - { day: 7, failBilling: grace }
///       - { day: 40, refund: true }
/// expect:
///   - { day: 10, customer: alice, status: gracePeriod, autoRenew: true }
///   - { day: 50, customer: alice, status: revoked }
/// ```
public struct Scenario: Sendable, Hashable, Codable {
    public var name: String
    public var description: String?
    /// How many days the scenario runs.
    public var days: Double
    /// The products (default: the demo catalog).
    public var products: [SimulatedProduct]?
    /// The grace period in days (default 16).
    public var gracePeriodDays: Int?
    /// Notifications lost for good and delivered twice (default none).
    public var dropRate: Double?
    public var duplicateRate: Double?
    public var customers: [ScenarioCustomer]
    public var expect: [ScenarioExpectation]

    public init(
        name: String, description: String? = nil, days: Double, products: [SimulatedProduct]? = nil, gracePeriodDays: Int? = nil,
        dropRate: Double? = nil, duplicateRate: Double? = nil, customers: [ScenarioCustomer], expect: [ScenarioExpectation]
    ) {
        self.name = name
        self.description = description
        self.days = days
        self.products = products
        self.gracePeriodDays = gracePeriodDays
        self.dropRate = dropRate
        self.duplicateRate = duplicateRate
        self.customers = customers
        self.expect = expect
    }

    /// Checks what decoding cannot: known customers and products, days inside the run.
    public func validate() throws(ScenarioError) {
        guard days > 0, days <= 3_650 else { throw ScenarioError("days must be more than 0 and at most 3650") }
        let catalog = Set((products ?? SimulatedProduct.demoCatalog).map(\.productId))
        let names = customers.map(\.name)
        guard Set(names).count == names.count else { throw ScenarioError("customer names must be unique") }
        for customer in customers {
            for action in customer.actions {
                guard action.day >= 0, action.day <= days else { throw ScenarioError("\(customer.name): day \(action.day) is outside 0…\(days)") }
                for product in [action.subscribe, action.changePlan, action.buy].compactMap({ $0 }) where !catalog.contains(product) {
                    throw ScenarioError("\(customer.name): unknown product \(product)")
                }
                guard action.kindCount == 1 else { throw ScenarioError("\(customer.name), day \(action.day): each action does exactly one thing") }
            }
        }
        for expectation in expect {
            guard names.contains(expectation.customer) else { throw ScenarioError("expectation names an unknown customer \(expectation.customer)") }
            guard expectation.day >= 0, expectation.day <= days else { throw ScenarioError("expectation day \(expectation.day) is outside 0…\(days)") }
            if let status = expectation.status, ScenarioExpectation.statuses[status] == nil {
                throw ScenarioError("unknown status \(status) (active, expired, billingRetry, gracePeriod, revoked)")
            }
        }
        for rate in [dropRate, duplicateRate].compactMap({ $0 }) where !(0...1).contains(rate) {
            throw ScenarioError("dropRate and duplicateRate must be between 0 and 1")
        }
    }
}

/// One scripted customer.
public struct ScenarioCustomer: Sendable, Hashable, Codable {
    public var name: String
    public var actions: [ScenarioAction]

    public init(name: String, actions: [ScenarioAction]) {
        self.name = name
        self.actions = actions
    }
}

/// One thing a customer (or Apple, for billing) does on a day. Exactly one of the fields is set.
public struct ScenarioAction: Sendable, Hashable, Codable {
    public var day: Double
    /// Buys this auto-renewable subscription; `offer` may be `trial` or `offerCode`.
    public var subscribe: String?
    public var offer: String?
    /// Turns auto-renew off (`cancel: true`) or back on (`resume: true`).
    public var cancel: Bool?
    public var resume: Bool?
    /// The next renewal fails; recovered `grace` (inside the grace period), `retry` (later in
    /// billing retry) or `never` (Apple gives up after 60 days).
    public var failBilling: String?
    /// Apple refunds the current period.
    public var refund: Bool?
    /// Moves to another product of the group: upgrade (at once), downgrade or crossgrade (at renewal).
    public var changePlan: String?
    /// Apple announces a price increase; `consent` says whether the customer accepts (a day later).
    public var priceIncrease: Bool?
    public var consent: Bool?
    /// Shares the subscription with a family member.
    public var familyShare: Bool?
    /// Comes back through a win-back offer after the subscription lapsed.
    public var winBack: Bool?
    /// Buys a one-time product.
    public var buy: String?

    public init(day: Double, subscribe: String? = nil, offer: String? = nil, cancel: Bool? = nil, refund: Bool? = nil) {
        self.day = day
        self.subscribe = subscribe
        self.offer = offer
        self.cancel = cancel
        self.refund = refund
    }

    var kindCount: Int {
        [subscribe != nil, cancel == true, resume == true, failBilling != nil, refund == true, changePlan != nil,
         priceIncrease == true, familyShare == true, winBack == true, buy != nil].filter { $0 }.count
    }
}

/// What a customer's subscription must look like on a day (fields left out are not checked).
public struct ScenarioExpectation: Sendable, Hashable, Codable {
    public var day: Double
    public var customer: String
    /// `active`, `expired`, `billingRetry`, `gracePeriod` or `revoked`.
    public var status: String?
    public var product: String?
    public var autoRenew: Bool?
    /// Whether the customer's family member's shared copy is checked instead.
    public var family: Bool?

    static let statuses: [String: Status] = [
        "active": .active, "expired": .expired, "billingRetry": .billingRetry, "gracePeriod": .billingGracePeriod, "revoked": .revoked,
    ]

    /// Apple's status for the expected name.
    public var appleStatus: Status? { status.flatMap { Self.statuses[$0] } }
}

/// A scenario file that cannot run.
public struct ScenarioError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
