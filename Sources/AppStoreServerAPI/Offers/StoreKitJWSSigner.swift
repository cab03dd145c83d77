import AppStoreModels
import Foundation

/// Signs the JWS an app hands to StoreKit: promotional offers (V2), introductory-offer
/// eligibility, and Advanced Commerce in-app requests.
///
/// Header `{"alg":"ES256","kid":…,"typ":"JWT"}`; claims `iss`, `iat` (seconds), `aud` (one
/// audience per kind), `bid`, `nonce` (a lower-case UUID) and the kind's own claims; no `exp`,
/// as Apple's libraries do.
public struct StoreKitJWSSigner: Sendable {
    /// Apple's audiences.
    public enum Audience {
        public static let promotionalOffer = "promotional-offer"
        public static let introductoryOfferEligibility = "introductory-offer-eligibility"
        public static let advancedCommerce = "advanced-commerce-api"
    }

    private let signer: CompactJWSSigner
    private let issuerId: String
    private let bundleId: String

    public init(key: InAppPurchaseKey, issuerId: String, bundleId: String) {
        self.signer = CompactJWSSigner(key: key)
        self.issuerId = issuerId
        self.bundleId = bundleId
    }

    /// A promotional offer signature (V2) for `productId` and `offerIdentifier`; the customer's
    /// `transactionId` (any of theirs, or their `appTransactionId`) is optional but recommended.
    public func promotionalOffer(
        productId: String, offerIdentifier: String, transactionId: String? = nil, nonce: UUID, issuedAt: Date
    ) throws(AppStoreServerAPIError) -> String {
        try signer.sign(
            PromotionalOfferClaims(
                base: base(audience: Audience.promotionalOffer, nonce: nonce, issuedAt: issuedAt),
                productId: productId, offerIdentifier: offerIdentifier, transactionId: transactionId))
    }

    /// An introductory-offer eligibility signature, overriding StoreKit's own eligibility check.
    public func introductoryOfferEligibility(
        productId: String, allowIntroductoryOffer: Bool, transactionId: String, nonce: UUID, issuedAt: Date
    ) throws(AppStoreServerAPIError) -> String {
        try signer.sign(
            IntroductoryOfferClaims(
                base: base(audience: Audience.introductoryOfferEligibility, nonce: nonce, issuedAt: issuedAt),
                productId: productId, allowIntroductoryOffer: allowIntroductoryOffer, transactionId: transactionId))
    }

    /// An Advanced Commerce in-app request: claim `request` is the standard base64 of the
    /// request's JSON.
    public func advancedCommerceInAppRequest(
        _ request: some AdvancedCommerceInAppRequest, nonce: UUID, issuedAt: Date
    ) throws(AppStoreServerAPIError) -> String {
        let json: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            json = try encoder.encode(request)
        } catch {
            throw AppStoreServerAPIError(.invalidRequest, "cannot encode the Advanced Commerce request: \(error)")
        }
        return try signer.sign(
            AdvancedCommerceClaims(
                base: base(audience: Audience.advancedCommerce, nonce: nonce, issuedAt: issuedAt),
                request: json.base64EncodedString()))
    }

    private func base(audience: String, nonce: UUID, issuedAt: Date) -> BaseClaims {
        BaseClaims(
            iss: issuerId, iat: Int64(issuedAt.timeIntervalSince1970.rounded(.down)), aud: audience, bid: bundleId,
            nonce: nonce.uuidString.lowercased())
    }
}

/// The claims every StoreKit JWS carries.
private struct BaseClaims: Encodable {
    var iss: String
    var iat: Int64
    var aud: String
    var bid: String
    var nonce: String
}

private enum ClaimKey: String, CodingKey {
    case iss, iat, aud, bid, nonce, productId, offerIdentifier, transactionId, allowIntroductoryOffer, request
}

extension BaseClaims {
    func encode(into container: inout KeyedEncodingContainer<ClaimKey>) throws {
        try container.encode(iss, forKey: .iss)
        try container.encode(iat, forKey: .iat)
        try container.encode(aud, forKey: .aud)
        try container.encode(bid, forKey: .bid)
        try container.encode(nonce, forKey: .nonce)
    }
}

private struct PromotionalOfferClaims: Encodable {
    var base: BaseClaims
    var productId: String
    var offerIdentifier: String
    var transactionId: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ClaimKey.self)
        try base.encode(into: &container)
        try container.encode(productId, forKey: .productId)
        try container.encode(offerIdentifier, forKey: .offerIdentifier)
        try container.encodeIfPresent(transactionId, forKey: .transactionId)
    }
}

private struct IntroductoryOfferClaims: Encodable {
    var base: BaseClaims
    var productId: String
    var allowIntroductoryOffer: Bool
    var transactionId: String

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ClaimKey.self)
        try base.encode(into: &container)
        try container.encode(productId, forKey: .productId)
        try container.encode(allowIntroductoryOffer, forKey: .allowIntroductoryOffer)
        try container.encode(transactionId, forKey: .transactionId)
    }
}

private struct AdvancedCommerceClaims: Encodable {
    var base: BaseClaims
    var request: String

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ClaimKey.self)
        try base.encode(into: &container)
        try container.encode(request, forKey: .request)
    }
}
