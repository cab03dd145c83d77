import AppStoreServerAPI
import Foundation
import Testing

@testable import StorekeeperCLI

@Suite("storekeeper offer sign")
struct OfferSignCommandTests {
    /// Apple's test In-App Purchase key, kept with the API client's fixtures.
    static let keyPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("AppStoreServerAPITests/Fixtures/testSigningKey.p8").path

    static let arguments = [
        "sign", "--key", keyPath, "--key-id", "KEY1", "--bundle-id", "com.example", "--product-id", "monthly",
        "--offer-id", "winback", "--app-account-token", "7389A31A-FB6D-4569-A2A6-DB7D85D84813",
        "--nonce", "D31B2A8E-2A4B-4C5E-9F1A-3F5E2A1B0C9D", "--timestamp", "1698148900000",
    ]

    func command(_ arguments: [String]) throws -> OfferSignCommand {
        let parsed = try OfferCommand.parseAsRoot(arguments)
        return try #require(parsed as? OfferSignCommand)
    }

    @Test("prints a signature that verifies with the key's public half over Apple's exact string")
    func signs() throws {
        let output = try command(Self.arguments).makeOutput(now: Date(), newNonce: UUID())
        #expect(output.keyId == "KEY1")
        #expect(output.nonce == "d31b2a8e-2a4b-4c5e-9f1a-3f5e2a1b0c9d")
        #expect(output.timestamp == 1_698_148_900_000)
        #expect(output.appAccountToken == "7389a31a-fb6d-4569-a2a6-db7d85d84813")

        let key = try InAppPurchaseKey(keyId: "KEY1", pem: String(contentsOfFile: Self.keyPath, encoding: .utf8))
        let fields = PromotionalOfferSignature.Fields(
            bundleId: "com.example", keyId: "KEY1", productId: "monthly", offerId: "winback",
            appAccountToken: "7389a31a-fb6d-4569-a2a6-db7d85d84813",
            nonce: UUID(uuidString: "D31B2A8E-2A4B-4C5E-9F1A-3F5E2A1B0C9D")!, timestamp: 1_698_148_900_000)
        #expect(fields.signedString.contains("com.example\u{2063}KEY1\u{2063}monthly\u{2063}winback\u{2063}"))
        #expect(PromotionalOfferSignature(fields: fields, signature: output.signature).isValid(publicKey: key.publicKey))

        let json = try JSONSerialization.jsonObject(with: JSONOutput.encoder().encode(output)) as? [String: Any]
        #expect(json?["signature"] as? String == output.signature)
        #expect(
            Set(json?.keys.map { $0 } ?? []) == [
                "signature", "keyId", "nonce", "timestamp", "bundleId", "productId", "offerId", "appAccountToken",
            ])
    }

    @Test("without --nonce and --timestamp a fresh nonce and the current time are used")
    func defaults() throws {
        let arguments = Array(Self.arguments.prefix(while: { $0 != "--nonce" }))
        let nonce = UUID()
        let output = try command(arguments).makeOutput(now: Date(timeIntervalSince1970: 1_700_000_000.5), newNonce: nonce)
        #expect(output.nonce == nonce.uuidString.lowercased())
        #expect(output.timestamp == 1_700_000_000_500)
    }

    @Test("a bad nonce, a bad token or an unreadable key is a usage error (exit 2)")
    func usageErrors() throws {
        var badNonce = Self.arguments
        badNonce[badNonce.firstIndex(of: "--nonce")! + 1] = "not-a-uuid"
        #expect(throws: CLIFailure.self) { _ = try command(badNonce).makeOutput(now: Date(), newNonce: UUID()) }

        var badToken = Self.arguments
        badToken[badToken.firstIndex(of: "--app-account-token")! + 1] = "bob"
        #expect(throws: CLIFailure.self) { _ = try command(badToken).makeOutput(now: Date(), newNonce: UUID()) }

        var badKey = Self.arguments
        badKey[badKey.firstIndex(of: "--key")! + 1] = "/nonexistent.p8"
        do {
            _ = try command(badKey).makeOutput(now: Date(), newNonce: UUID())
            Issue.record("an unreadable key was accepted")
        } catch let failure as CLIFailure {
            #expect(failure.exitCode == CLIFailure.usageExitCode)
        }

        #expect(throws: (any Error).self) { _ = try command(["sign", "--key", Self.keyPath]) }
    }
}
