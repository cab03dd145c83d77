import AppStoreServerAPI
import Foundation
import Testing

@Suite("storekeeper offer sign, as a process")
struct OfferSignProcessTests {
    @Test("the printed signature verifies with the key's public half over Apple's exact string; bad input exits 2")
    func signsFromTheCommandLine() async throws {
        guard FileManager.default.isExecutableFile(atPath: StorekeeperProcess.executable.path) else {
            print("the storekeeper executable is not built next to the tests; process test skipped")
            return
        }
        let signed = try await StorekeeperProcess.run(["offer"] + OfferSignCommandTests.arguments)
        #expect(signed.exitCode == 0, "\(signed.standardError)")
        let json = try signed.json()
        let signature = try #require(json["signature"] as? String)
        #expect(json["keyId"] as? String == "KEY1")
        #expect(json["nonce"] as? String == "d31b2a8e-2a4b-4c5e-9f1a-3f5e2a1b0c9d")
        #expect(json["timestamp"] as? Int == 1_698_148_900_000)

        let key = try InAppPurchaseKey(keyId: "KEY1", pem: String(contentsOfFile: OfferSignCommandTests.keyPath, encoding: .utf8))
        let fields = PromotionalOfferSignature.Fields(
            bundleId: "com.example", keyId: "KEY1", productId: "monthly", offerId: "winback",
            appAccountToken: "7389a31a-fb6d-4569-a2a6-db7d85d84813",
            nonce: UUID(uuidString: "d31b2a8e-2a4b-4c5e-9f1a-3f5e2a1b0c9d")!, timestamp: 1_698_148_900_000)
        #expect(PromotionalOfferSignature(fields: fields, signature: signature).isValid(publicKey: key.publicKey))

        let badNonce = try await StorekeeperProcess.run([
            "offer", "sign", "--key", OfferSignCommandTests.keyPath, "--key-id", "K", "--bundle-id", "b", "--product-id", "p",
            "--offer-id", "o", "--nonce", "nope",
        ])
        #expect(badNonce.exitCode == 2)
        #expect(badNonce.standardError.contains("--nonce"))
    }
}
