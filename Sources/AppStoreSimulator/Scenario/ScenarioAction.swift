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
        [
            subscribe != nil, cancel == true, resume == true, failBilling != nil, refund == true, changePlan != nil,
            priceIncrease == true, familyShare == true, winBack == true, buy != nil,
        ].filter { $0 }.count
    }
}
