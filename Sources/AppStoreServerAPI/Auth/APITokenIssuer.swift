import Foundation

/// Issues the ES256 bearer tokens of one app's API client and reuses each until shortly before
/// it expires, so a burst of requests signs once rather than once per request.
public actor APITokenIssuer {
    /// How long a token lives (Apple's library: 5 minutes).
    public let lifetime: Duration
    /// A token is replaced when less than this remains of its life.
    public let renewalMargin: Duration

    private let signer: CompactJWSSigner
    private let issuerId: String
    private let bundleId: String
    private var current: (token: String, claims: APITokenClaims)?

    public init(
        key: InAppPurchaseKey, issuerId: String, bundleId: String,
        lifetime: Duration = .seconds(300), renewalMargin: Duration = .seconds(60)
    ) {
        self.signer = CompactJWSSigner(key: key)
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.lifetime = lifetime
        self.renewalMargin = renewalMargin
    }

    /// A token valid at `now` for at least the renewal margin.
    public func token(now: Date) throws(AppStoreServerAPIError) -> String {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        if let current, seconds >= current.claims.issuedAt,
            seconds + renewalMargin.components.seconds < current.claims.expiresAt
        {
            return current.token
        }
        let claims = APITokenClaims(
            issuerId: issuerId, issuedAt: seconds, expiresAt: seconds + lifetime.components.seconds, bundleId: bundleId)
        let token = try signer.sign(claims)
        current = (token, claims)
        return token
    }
}
