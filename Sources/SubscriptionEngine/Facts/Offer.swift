/// The offer in effect for one period: what kind and, when Apple says, which one.
public struct Offer: Sendable, Hashable, Codable {
    /// The kind of offer.
    public var kind: OfferKind
    /// The offer's identifier (promotional offer id, offer code reference name, win-back id).
    public var identifier: String?

    public init(kind: OfferKind, identifier: String? = nil) {
        self.kind = kind
        self.identifier = identifier
    }
}
