import Foundation
import StorekeeperTestSupport
import Testing

@Suite("Forged and malformed JWS get Apple's verdict")
struct ForgedInputTests {
    @Test("Storekeeper's verifier gives the expected verdict on every input of the table")
    func storekeeperVerdicts() async throws {
        let table = try ForgedInputTable.shared.get()
        #expect(table.count > 50)
        for input in table {
            let verdict = try await input.storekeeperVerdict()
            #expect(verdict == input.expected, "\(input.name)")
        }
    }

    @Test(
        "Apple's Python verifier (strict mode) gives the same verdict on every input of the table",
        .enabled(if: InteropPython.shouldRun, InteropPython.skipMessage)
    )
    func pythonReferenceAgrees() async throws {
        let table = try ForgedInputTable.shared.get()
        let verdicts = try await AppleReferenceVerifier.verdicts(for: table.map(\.referenceCase), interpreter: try InteropPython.require())
        for input in table {
            let reference = try #require(verdicts[input.name], "\(input.name)")
            #expect(reference.status == input.expected, "\(input.name): Python says \(reference.status) \(reference.error ?? "")")
        }
    }
}
