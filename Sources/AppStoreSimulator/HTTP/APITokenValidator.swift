import AppStoreJOSE
import Crypto
import Foundation

/// Checks an App Store Server API bearer token as Apple does: a compact JWS signed ES256 with a
/// known In-App Purchase key (`kid`), whose claims name the issuer (`iss`), the audience
/// `appstoreconnect-v1` (`aud`), the app (`bid`), and an expiry (`exp`) in the future and at
/// most an hour after issue (`iat`, or now when the token has none, as Apple's Python library
/// sends).
///
/// A refusal is a value with the reason (the HTTP answer is a bare 401, as Apple's).
struct APITokenValidator: Sendable {
    enum Verdict: Equatable, Sendable {
        case accepted
        case rejected(String)
    }

    let issuerId: String
    let bundleId: String
    let keys: [String: P256.Signing.PublicKey]
    let maximumLifetime: TimeInterval
    /// Tolerated clock skew for `iat` in the future, seconds.
    let skew: TimeInterval = 60

    /// Judges the `Authorization` header's value at the real instant `now`.
    func validate(authorization: String?, now: Date) -> Verdict {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return .rejected("no bearer token") }
        let token = authorization.dropFirst("Bearer ".count).trimmingCharacters(in: .whitespaces)
        guard let jws = CompactJWS(token), let header = jws.decodedHeader,
            let claims = try? JSONDecoder().decode(Claims.self, from: Data(jws.payload))
        else { return .rejected("not a compact JWS with JSON header and claims") }

        guard header.algorithm == "ES256" else { return .rejected("alg is not ES256") }
        guard let kid = header.keyId, let key = keys[kid] else { return .rejected("unknown kid") }
        guard jws.isSignedES256(by: key) else { return .rejected("bad signature") }

        guard claims.iss == issuerId else { return .rejected("wrong iss") }
        guard claims.aud?.values.contains("appstoreconnect-v1") == true else { return .rejected("wrong aud") }
        guard claims.bid == bundleId else { return .rejected("wrong bid") }
        guard let exp = claims.exp, exp.isFinite else { return .rejected("no exp") }
        let nowSeconds = now.timeIntervalSince1970
        guard exp > nowSeconds else { return .rejected("expired") }
        if let iat = claims.iat {
            guard iat.isFinite, iat <= nowSeconds + skew else { return .rejected("issued in the future") }
            guard exp - iat <= maximumLifetime else { return .rejected("lifetime over the maximum") }
        } else {
            guard exp - nowSeconds <= maximumLifetime + skew else { return .rejected("expiry too far ahead") }
        }
        return .accepted
    }

    private struct Claims: Decodable {
        var iss: String?
        var aud: Audience?
        var bid: String?
        var exp: Double?
        var iat: Double?
    }

    /// `aud` is a string or an array of strings.
    private struct Audience: Decodable {
        var values: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let single = try? container.decode(String.self) {
                values = [single]
            } else {
                values = try container.decode([String].self)
            }
        }
    }
}
