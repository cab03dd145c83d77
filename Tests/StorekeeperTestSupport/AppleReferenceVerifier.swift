import Foundation
import Testing

/// Runs Apple's Python App Store Server Library (the reference verifier) on a batch of JWS in
/// one subprocess and returns its verdict for each.
///
/// The interpreter comes from ``InteropPython``.
public enum AppleReferenceVerifier {
    /// One verification to run: the JWS and the verifier configuration.
    public struct Case: Encodable, Sendable {
        var id: String
        var jws: String
        /// `transaction`, `renewal`, `notification`, `appTransaction` or `realtime`.
        var type: String
        var roots: [String]
        var bundleId: String
        var environment: String
        var appAppleId: Int64?
        var strict: Bool

        public init(id: String, jws: String, type: String, roots: [String], bundleId: String, environment: String, appAppleId: Int64?, strict: Bool) {
            self.id = id
            self.jws = jws
            self.type = type
            self.roots = roots
            self.bundleId = bundleId
            self.environment = environment
            self.appAppleId = appAppleId
            self.strict = strict
        }
    }

    public struct Verdict: Decodable, Sendable {
        public var id: String
        /// Lower-case Python `VerificationStatus` name, `ok`, or `exception`.
        public var status: String
        public var error: String?
    }

    /// Apple's verdict for each case, by case id.
    public static func verdicts(for cases: [Case], interpreter: String) async throws -> [String: Verdict] {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-reference-verifier-\(UUID().uuidString).py")
        try Data(pythonScript.utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }

        // Isolated (`-I`): the script's folder (the temporary one, where anything may lie, such as
        // an `attr.py` that hid the library's dependency) is not searched for modules.
        let finished = try await ChildProcess.run(interpreter, ["-I", script.path], input: try JSONEncoder().encode(["cases": cases]))
        guard finished.status == 0 else { throw ScriptFailed(message: finished.errorText) }
        let outputData = finished.output
        let verdicts = try JSONDecoder().decode([Verdict].self, from: outputData)
        return Dictionary(verdicts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public struct ScriptFailed: Error, CustomStringConvertible {
        let message: String
        public var description: String { "reference verifier script failed: \(message)" }
    }

    static let pythonScript = #"""
        import base64, json, sys
        from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
        from appstoreserverlibrary.models.Environment import Environment

        request = json.load(sys.stdin)
        verdicts = []
        for case in request["cases"]:
            try:
                roots = [base64.b64decode(root) for root in case["roots"]]
                verifier = SignedDataVerifier(roots, False, Environment(case["environment"]), case["bundleId"], case.get("appAppleId"))
                verifier._chain_verifier.enable_strict_checks = case["strict"]
                method = {
                    "transaction": verifier.verify_and_decode_signed_transaction,
                    "renewal": verifier.verify_and_decode_renewal_info,
                    "notification": verifier.verify_and_decode_notification,
                    "appTransaction": verifier.verify_and_decode_app_transaction,
                    "realtime": verifier.verify_and_decode_realtime_request,
                }[case["type"]]
                method(case["jws"])
                verdicts.append({"id": case["id"], "status": "ok"})
            except VerificationException as error:
                verdicts.append({"id": case["id"], "status": error.status.name.lower()})
            except Exception as error:
                verdicts.append({"id": case["id"], "status": "exception", "error": repr(error)})
        print(json.dumps(verdicts))
        """#
}
