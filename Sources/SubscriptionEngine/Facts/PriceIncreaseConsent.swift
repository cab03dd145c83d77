/// The customer's answer to a price increase Apple announced.
public enum PriceIncreaseConsent: String, Sendable, Hashable, Codable, CaseIterable {
    /// Apple asked and the customer has not answered yet (status 0, `PRICE_INCREASE` `PENDING`).
    case pending
    /// The customer agreed, or Apple did not need consent (status 1, `ACCEPTED`).
    case accepted
}
