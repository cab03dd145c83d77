import AppStoreModels
import AppStoreSimulator
import Foundation
import StorekeeperTestSupport
import Testing

@Suite("Population lifecycle: Apple's Python verifier", .tags(.slow), .skippedWhenFast)
struct PopulationInteropTests {
    @Test(
        "Apple's verifier accepts every notification, device transaction and renewal info a busy population produced",
        .enabled(if: InteropPython.shouldRun, InteropPython.skipMessage))
    func applesVerifierAcceptsEverything() async throws {
        let python = try InteropPython.require()
        let (store, outputs) = try PopulationSimulatorTests.run(customers: 40, days: 150, seed: 21, behaviour: PopulationSimulatorTests.busy)
        let root = PopulationSimulatorTests.signer.certificateAuthority.rootCertificateDER.base64EncodedString()
        var inputs: [(id: String, jws: String, type: String)] = []
        inputs += outputs.flatMap(\.notifications).map { ("n-\($0.notificationUUID)", $0.signedPayload, "notification") }
        inputs += outputs.flatMap(\.purchases).map { ("t-\($0.transactionId)", $0.signedTransaction, "transaction") }
        let end = PopulationSimulatorTests.start.addingTimeInterval(150 * 86_400)
        for truth in store.subscriptions() {
            let signed = try PopulationSimulatorTests.signer.signRenewalInfo(truth, store: store, signedDate: end)
            inputs.append(("r-\(truth.originalTransactionId)", signed, "renewal"))
        }
        #expect(inputs.count > 150)
        let cases = inputs.map {
            AppleReferenceVerifier.Case(
                id: $0.id, jws: $0.jws, type: $0.type, roots: [root], bundleId: "com.example.sim", environment: "Production", appAppleId: 42,
                strict: true)
        }
        let verdicts = try await AppleReferenceVerifier.verdicts(for: cases, interpreter: python)
        let refused = inputs.filter { verdicts[$0.id]?.status != "ok" }.map {
            "\($0.id): \(verdicts[$0.id]?.status ?? "no verdict") \(verdicts[$0.id]?.error ?? "")"
        }
        #expect(refused.count == 0, "Apple refused \(refused.count) of \(inputs.count): \(refused.prefix(5))")
    }
}
