import Foundation

/// How Apple's commission on a sale is decided.
///
/// Apple keeps 30 % of a sale's price. For an auto-renewable subscription it keeps 15 % once
/// the subscriber has accumulated one year of paid service in the subscription group: days of
/// paid service add up across renewals, upgrades, downgrades and crossgrades; free trials and
/// refunded periods add nothing; a lapse of more than 60 days restarts the count. Members of
/// the App Store Small Business Program pay 15 % on everything. Rates are in basis points
/// (3 000 = 30 %). Prices are taken as Apple reports them; taxes are not modelled.
public struct CommissionPolicy: Sendable, Hashable, Codable {
    /// Whether the developer is in the Small Business Program (15 % on every sale).
    public var smallBusinessProgram: Bool
    /// The standard rate (3 000 = 30 %).
    public var standardRate: Int
    /// The reduced rate (1 500 = 15 %).
    public var reducedRate: Int
    /// Paid service needed before the reduced rate applies to a subscription (one year).
    public var paidServiceForReducedRate: TimeInterval
    /// The longest lapse that keeps the accumulated paid service (60 days).
    public var maximumServiceGap: TimeInterval

    public init(
        smallBusinessProgram: Bool = false,
        standardRate: Int = 3_000,
        reducedRate: Int = 1_500,
        paidServiceForReducedRate: TimeInterval = 365 * 86_400,
        maximumServiceGap: TimeInterval = 60 * 86_400
    ) {
        self.smallBusinessProgram = smallBusinessProgram
        self.standardRate = standardRate
        self.reducedRate = reducedRate
        self.paidServiceForReducedRate = paidServiceForReducedRate
        self.maximumServiceGap = maximumServiceGap
    }
}
