import Foundation

/// Something that will happen to the population at an instant.
enum LifecycleEvent: Sendable {
    case arrive(customer: Int)
    /// The end of a subscription's period: it renews, lapses or fails billing.
    case renew(chain: String, due: Date)
    /// A billing retry ends: recovered (a renewal) or given up (expired).
    case billingOutcome(chain: String, token: Int, recovered: Bool)
    case graceExpired(chain: String, token: Int)
    case autoRenew(chain: String, token: Int, on: Bool)
    case refund(chain: String, token: Int)
    case changePlan(chain: String, token: Int, productId: String)
    case priceIncrease(chain: String, token: Int)
    case priceConsent(chain: String, token: Int)
    case winBack(chain: String, token: Int)
    case oneTime(customer: Int, productId: String)
    case consumptionRequest(transactionId: String)
    case refundDecision(transactionId: String, refunded: Bool)
    /// A scenario's action.
    case scripted(customer: Int, action: ScenarioAction)
}
