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
            guard expectation.day >= 0, expectation.day <= days else {
                throw ScenarioError("expectation day \(expectation.day) is outside 0…\(days)")
            }
            if let status = expectation.status, ScenarioExpectation.statuses[status] == nil {
                throw ScenarioError("unknown status \(status) (active, expired, billingRetry, gracePeriod, revoked)")
            }
        }
        for rate in [dropRate, duplicateRate].compactMap({ $0 }) where !(0...1).contains(rate) {
            throw ScenarioError("dropRate and duplicateRate must be between 0 and 1")
        }
    }
}
