import Foundation
import StorekeeperTestSupport
import Testing

/// `storekeeper jws sign | verify` as a newcomer runs them: exit codes, output shape, and the
/// same verdict as Apple's Python verifier on fresh valid and forged inputs of every kind.
@Suite struct JWSCommandTests {
    let bundleId = "com.example.cli"

    @Test func signedNotificationVerifiesWithItsNestedTransactionAndRenewalInfo() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let signed = try await StorekeeperProcess.run(
            ["jws", "sign", "--ca", "ca", "--type", "notification", "--bundle-id", bundleId, "--environment", "Sandbox"],
            in: directory
        )
        #expect(signed.exitCode == 0, "\(signed.standardError)")
        try signed.standardOutput.write(to: directory.appendingPathComponent("n.jws"))

        let verified = try await StorekeeperProcess.run(
            ["jws", "verify", "n.jws", "--type", "notification", "--root", "ca/root.der", "--bundle-id", bundleId, "--environment", "Sandbox"],
            in: directory
        )
        #expect(verified.exitCode == 0, "\(verified.standardError)")
        let verdict = try verified.json()
        #expect(verdict["valid"] as? Bool == true)
        #expect(verdict["reason"] == nil)
        let payload = try #require(verdict["payload"] as? [String: Any])
        #expect(payload["notificationType"] as? String == "SUBSCRIBED")
        let data = try #require(payload["data"] as? [String: Any])
        let transaction = try #require(data["transactionInfo"] as? [String: Any])
        #expect(transaction["bundleId"] as? String == bundleId)
        #expect(transaction["signedDate"] as? Int != nil, "Apple signs whole milliseconds")
        let renewal = try #require(data["renewalInfo"] as? [String: Any])
        #expect(renewal["autoRenewStatus"] as? Int == 1)
    }

    @Test func aNotificationBodyWithSignedPayloadIsAcceptedAsInput() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let signed = try await StorekeeperProcess.run(
            ["jws", "sign", "--ca", "ca", "--type", "notification", "--bundle-id", bundleId], in: directory)
        let body = try JSONSerialization.data(withJSONObject: ["signedPayload": signed.text.trimmingCharacters(in: .whitespacesAndNewlines)])
        try body.write(to: directory.appendingPathComponent("body.json"))
        let verified = try await StorekeeperProcess.run(
            ["jws", "verify", "body.json", "--type", "notification", "--root", "ca/root.der", "--bundle-id", bundleId, "--environment", "Sandbox"],
            in: directory
        )
        #expect(verified.exitCode == 0, "\(verified.text) \(verified.standardError)")
    }

    @Test func usageErrorsAndUnreadableFilesExitWithTwo() async throws {
        let missingFile = try await StorekeeperProcess.run([
            "jws", "verify", "/nonexistent/x.jws", "--type", "transaction", "--bundle-id", "a", "--environment", "Sandbox",
        ])
        #expect(missingFile.exitCode == 2)
        #expect(missingFile.standardError.contains("cannot read"))
        let badType = try await StorekeeperProcess.run(["jws", "verify", "x", "--type", "receipt", "--bundle-id", "a", "--environment", "Sandbox"])
        #expect(badType.exitCode == 2)
        let missingOption = try await StorekeeperProcess.run(["jws", "verify", "x", "--type", "transaction"])
        #expect(missingOption.exitCode == 2)
        let productionWithoutAppleId = try await StorekeeperProcess.run([
            "jws", "verify", "/dev/null", "--type", "transaction", "--bundle-id", "a", "--environment", "Production",
        ])
        #expect(productionWithoutAppleId.exitCode == 2)
        let unknownCommand = try await StorekeeperProcess.run(["frobnicate"])
        #expect(unknownCommand.exitCode == 2)
        let help = try await StorekeeperProcess.run(["--help"])
        #expect(help.exitCode == 0)
        #expect(help.text.contains("jws"))
    }

    @Test func garbageIsAnInvalidVerdictNotACrash() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputs: [String: Data] = [
            "empty": Data(),
            "dots": Data("a.b.c".utf8),
            "four": Data("a.b.c.d".utf8),
            "binary": Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }),
            "json": Data(#"{"signedPayload": 42}"#.utf8),
        ]
        for (name, data) in inputs {
            try data.write(to: directory.appendingPathComponent(name))
            let result = try await StorekeeperProcess.run(
                ["jws", "verify", name, "--type", "transaction", "--bundle-id", bundleId, "--environment", "Sandbox"], in: directory
            )
            #expect(result.exitCode == 1, "\(name): \(result.text) \(result.standardError)")
            #expect(try result.json()["reason"] as? String == "verification_failure", "\(name)")
        }
    }

    /// One signing and one verification configuration, and the verdict both verifiers reach.
    struct InteropCase {
        var name: String
        var type: String
        var forge: String?
        var environment = "Sandbox"
        var verifyBundleId: String?
        var verifyEnvironment: String?
        var appAppleId: Int64?
        var verifyAppAppleId: Int64?

        /// Apple's rules: renewal infos carry no bundle id, and only notifications and app
        /// transactions carry the app Apple id.
        var shouldBeAccepted: Bool {
            if forge != nil || verifyEnvironment != nil { return false }
            if verifyBundleId != nil { return type == "renewal" }
            if let verifyAppAppleId, verifyAppAppleId != appAppleId { return type == "transaction" || type == "renewal" }
            return true
        }
    }

    static let forgeries = [
        "alg-none", "alg-es384", "two-certificates", "four-certificates", "missing-chain", "foreign-key",
        "tampered-payload", "foreign-root", "missing-leaf-marker", "missing-intermediate-marker", "expired-leaf", "future-leaf",
    ]

    static var interopCases: [InteropCase] {
        var cases: [InteropCase] = []
        for type in ["transaction", "renewal", "notification", "app-transaction"] {
            cases.append(InteropCase(name: "\(type) valid", type: type))
            cases.append(
                InteropCase(name: "\(type) production valid", type: type, environment: "Production", appAppleId: 1234, verifyAppAppleId: 1234))
            cases.append(InteropCase(name: "\(type) wrong bundle", type: type, verifyBundleId: "com.example.other"))
            cases.append(InteropCase(name: "\(type) wrong environment", type: type, verifyEnvironment: "Production", verifyAppAppleId: 1234))
            cases.append(
                InteropCase(name: "\(type) wrong app apple id", type: type, environment: "Production", appAppleId: 1234, verifyAppAppleId: 9999))
            for forge in forgeries {
                cases.append(InteropCase(name: "\(type) \(forge)", type: type, forge: forge))
            }
        }
        return cases
    }

    @Test(.enabled(if: InteropPython.shouldRun, InteropPython.skipMessage))
    func verdictsAgreeWithApplesPythonVerifierOnFreshValidAndForgedInputs() async throws {
        let python = try InteropPython.require()
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var ours: [String: (valid: Bool, reason: String?)] = [:]
        var references: [AppleReferenceVerifier.Case] = []
        let root = directory.appendingPathComponent("ca/root.der")
        for (index, testCase) in Self.interopCases.enumerated() {
            var sign = ["jws", "sign", "--ca", "ca", "--type", testCase.type, "--bundle-id", bundleId, "--environment", testCase.environment]
            if let appAppleId = testCase.appAppleId { sign += ["--app-apple-id", String(appAppleId)] }
            if let forge = testCase.forge { sign += ["--forge", forge] }
            let signed = try await StorekeeperProcess.run(sign, in: directory)
            try #require(signed.exitCode == 0, "\(testCase.name): \(signed.standardError)")
            let file = "case-\(index).jws"
            try signed.standardOutput.write(to: directory.appendingPathComponent(file))

            let verifyBundleId = testCase.verifyBundleId ?? bundleId
            let verifyEnvironment = testCase.verifyEnvironment ?? testCase.environment
            var verify = [
                "jws", "verify", file, "--type", testCase.type, "--root", "ca/root.der", "--bundle-id", verifyBundleId, "--environment",
                verifyEnvironment,
            ]
            if let appAppleId = testCase.verifyAppAppleId { verify += ["--app-apple-id", String(appAppleId)] }
            let verified = try await StorekeeperProcess.run(verify, in: directory)
            let verdict = try verified.json()
            let valid = verdict["valid"] as? Bool ?? false
            #expect(verified.exitCode == (valid ? 0 : 1), "\(testCase.name)")
            ours[testCase.name] = (valid, verdict["reason"] as? String)

            references.append(
                AppleReferenceVerifier.Case(
                    id: testCase.name,
                    jws: signed.text.trimmingCharacters(in: .whitespacesAndNewlines),
                    type: testCase.type == "app-transaction" ? "appTransaction" : testCase.type,
                    roots: [try Data(contentsOf: root).base64EncodedString()],
                    bundleId: verifyBundleId,
                    environment: verifyEnvironment,
                    appAppleId: testCase.verifyAppAppleId,
                    strict: true
                ))
        }
        let apple = try await AppleReferenceVerifier.verdicts(for: references, interpreter: python)
        for testCase in Self.interopCases {
            let reference = try #require(apple[testCase.name])
            let mine = try #require(ours[testCase.name])
            let expected = reference.status == "ok" ? nil : reference.status
            #expect(mine.valid == (reference.status == "ok"), "\(testCase.name): Apple says \(reference.status) \(reference.error ?? "")")
            #expect(mine.reason == expected, "\(testCase.name): ours \(mine.reason ?? "valid"), Apple's \(reference.status)")
            #expect(mine.valid == testCase.shouldBeAccepted, "\(testCase.name)")
        }
    }
}
