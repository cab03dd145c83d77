import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import StorekeeperTestSupport
import Testing

@Suite("API bearer tokens")
struct APITokenTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000.75)

    func issuer() throws -> (APITokenIssuer, InAppPurchaseKey) {
        let key = try InAppPurchaseKey(keyId: "KEY123", pem: Fixture.signingKeyPEM())
        return (APITokenIssuer(key: key, issuerId: "issuer-1", bundleId: "com.example"), key)
    }

    @Test("header alg/kid/typ and claims iss, iat, exp = iat + 5 min, aud, bid")
    func claims() async throws {
        let (issuer, _) = try issuer()
        let token = try DecodedJWT(await issuer.token(now: Self.now))
        #expect(token.header["alg"] as? String == "ES256")
        #expect(token.header["kid"] as? String == "KEY123")
        #expect(token.header["typ"] as? String == "JWT")
        #expect(token.claims["iss"] as? String == "issuer-1")
        #expect(token.claims["iat"] as? Int == 1_700_000_000)
        #expect(token.claims["exp"] as? Int == 1_700_000_300)
        #expect(token.claims["aud"] as? String == "appstoreconnect-v1")
        #expect(token.claims["bid"] as? String == "com.example")
        #expect(token.claims.count == 5)
    }

    @Test("a token is reused until a minute before it expires, then replaced")
    func reuse() async throws {
        let (issuer, _) = try issuer()
        let first = try await issuer.token(now: Self.now)
        #expect(try await issuer.token(now: Self.now.addingTimeInterval(200)) == first)
        let renewed = try await issuer.token(now: Self.now.addingTimeInterval(240))
        #expect(renewed != first)
        #expect(try DecodedJWT(renewed).claims["iat"] as? Int == 1_700_000_240)
    }

    @Test("a clock that jumps backwards gets a fresh token, never one issued in its future")
    func clockBackwards() async throws {
        let (issuer, _) = try issuer()
        let first = try await issuer.token(now: Self.now)
        let earlier = try await issuer.token(now: Self.now.addingTimeInterval(-30))
        #expect(earlier != first)
    }

    @Test("the client signs once for a burst of requests")
    func clientReusesToken() async throws {
        let harness = try ClientHarness()
        for _ in 0..<3 { await harness.transport.expect("GET", "/inApps/v1/transactions/1", respond: .json(200, "{}")) }
        for _ in 0..<3 { _ = try await harness.client.getTransactionInfo(transactionId: "1") }
        let tokens = Set(await harness.transport.requests.compactMap { $0.header("Authorization") })
        #expect(tokens.count == 1)
    }

    @Test(
        "Apple's Python toolchain (PyJWT) accepts the token with the key's public half and audience",
        .enabled(if: InteropPython.shouldRun, InteropPython.skipMessage))
    func pythonDecodesToken() async throws {
        let (issuer, _) = try issuer()
        let realNow = Date()
        let token = try await issuer.token(now: realNow)
        let script = """
            import sys, json, jwt
            from cryptography.hazmat.primitives import serialization
            key = serialization.load_pem_private_key(open(sys.argv[2], 'rb').read(), password=None)
            claims = jwt.decode(sys.argv[1], key.public_key(), algorithms=['ES256'], audience='appstoreconnect-v1')
            header = jwt.get_unverified_header(sys.argv[1])
            print(json.dumps({'claims': claims, 'header': header}, sort_keys=True))
            """
        let output = try await PythonCrossCheck.output(script, [token, try Fixture.url("testSigningKey.p8").path])
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: [String: Any]])
        #expect(decoded["claims"]?["bid"] as? String == "com.example")
        #expect(decoded["claims"]?["iss"] as? String == "issuer-1")
        #expect(decoded["header"]?["kid"] as? String == "KEY123")
        let iat = try #require(decoded["claims"]?["iat"] as? Int)
        #expect(decoded["claims"]?["exp"] as? Int == iat + 300)
    }
}
