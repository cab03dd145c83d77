import Crypto
import Foundation
import Testing

@testable import AppStoreSimulator

@Suite("API token validation like Apple's")
struct APITokenValidatorTests {
    let key = P256.Signing.PrivateKey()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    var validator: APITokenValidator {
        APITokenValidator(issuerId: "issuer", bundleId: "com.example.app", keys: ["KID": key.publicKey], maximumLifetime: 3600)
    }

    func token(
        header: [String: Any] = ["alg": "ES256", "kid": "KID", "typ": "JWT"], claims: [String: Any], signer: P256.Signing.PrivateKey? = nil
    ) throws -> String {
        func encode(_ object: [String: Any]) throws -> String {
            try JSONSerialization.data(withJSONObject: object).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let input = "\(try encode(header)).\(try encode(claims))"
        let signature = try (signer ?? key).signature(for: Data(input.utf8)).rawRepresentation.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "Bearer \(input).\(signature)"
    }

    func claims(iat: Double? = nil, exp: Double? = nil, aud: Any = "appstoreconnect-v1", bid: String = "com.example.app") -> [String: Any] {
        var claims: [String: Any] = ["iss": "issuer", "aud": aud, "bid": bid, "exp": exp ?? now.timeIntervalSince1970 + 300]
        if let iat { claims["iat"] = iat }
        return claims
    }

    @Test func acceptsApplesLibraryTokensWithAndWithoutIssuedAt() throws {
        let t = now.timeIntervalSince1970
        #expect(validator.validate(authorization: try token(claims: claims(iat: t, exp: t + 300)), now: now) == .accepted)
        #expect(validator.validate(authorization: try token(claims: claims()), now: now) == .accepted)
        #expect(validator.validate(authorization: try token(claims: claims(aud: ["appstoreconnect-v1"])), now: now) == .accepted)
    }

    @Test func refusesExpiredOverlongForgedAndMisaddressedTokens() throws {
        let t = now.timeIntervalSince1970
        let refused: [String] = [
            try token(claims: claims(iat: t - 600, exp: t - 1)),
            try token(claims: claims(iat: t, exp: t + 3601)),
            try token(claims: claims(exp: t + 7200)),
            try token(claims: claims(aud: "appstoreconnect-v2")),
            try token(claims: claims(bid: "com.example.other")),
            try token(claims: claims(), signer: P256.Signing.PrivateKey()),
            try token(header: ["alg": "HS256", "kid": "KID"], claims: claims()),
            try token(header: ["alg": "ES256", "kid": "OTHER"], claims: claims()),
            "Bearer not.a.token",
            "Basic abc",
        ]
        for authorization in refused {
            #expect(validator.validate(authorization: authorization, now: now) != .accepted, "\(authorization)")
        }
        #expect(validator.validate(authorization: nil, now: now) != .accepted)
    }
}
