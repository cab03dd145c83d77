import AppStoreModels
import AppStoreTestSigning
import AppStoreVerification
import Crypto
import Foundation
import StorekeeperTestSupport

/// The forged, malformed and honest inputs every verifier must judge like Apple's, each with
/// the verdict Apple's Python verifier gives (`ok` or a lower-case `VerificationStatus`).
struct ForgedInput: Sendable, CustomStringConvertible {
    enum Kind: String, Sendable {
        case transaction, renewal, notification, appTransaction, realtime
    }

    struct Configuration: Sendable {
        var roots: [Data]
        var bundleId = "com.example.storekeeper"
        var environment: AppStoreEnvironment = .sandbox
        var appAppleId: Int64?
        var strict = true
    }

    let name: String
    let kind: Kind
    let configuration: Configuration
    let jws: String
    let expected: String

    var description: String { name }

    /// Verifies with Storekeeper's verifier; returns `ok` or the failure reason.
    func storekeeperVerdict(now: Date = ForgedInputTable.now) async throws -> String {
        let verifier = try SignedDataVerifier(
            rootCertificates: configuration.roots, bundleId: configuration.bundleId,
            appAppleId: configuration.appAppleId, environment: configuration.environment,
            options: .init(strictCertificateChecks: configuration.strict)
        )
        let failure: VerificationFailure?
        switch kind {
        case .transaction: failure = await verifier.verifyAndDecodeTransaction(jws, now: now).failure
        case .renewal: failure = await verifier.verifyAndDecodeRenewalInfo(jws, now: now).failure
        case .notification: failure = await verifier.verifyAndDecodeNotification(jws, now: now).failure
        case .appTransaction: failure = await verifier.verifyAndDecodeAppTransaction(jws, now: now).failure
        case .realtime: failure = await verifier.verifyAndDecodeRealtimeRequest(jws, now: now).failure
        }
        return failure?.reason.rawValue ?? "ok"
    }

    var referenceCase: AppleReferenceVerifier.Case {
        AppleReferenceVerifier.Case(
            id: name, jws: jws, type: kind.rawValue, roots: configuration.roots.map { $0.base64EncodedString() },
            bundleId: configuration.bundleId, environment: configuration.environment.rawValue,
            appAppleId: configuration.appAppleId, strict: configuration.strict
        )
    }
}

enum ForgedInputTable {
    /// 2025-06-01T00:00:00Z: the `signedDate` of every input and the verifiers' `now`.
    static let now = Date(timeIntervalSince1970: 1_748_736_000)
    static let signedDate: Int64 = 1_748_736_000_000
    static let caNotBefore = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01
    static let caNotAfter = Date(timeIntervalSince1970: 1_893_456_000)  // 2030-01-01

    static func transaction(bundleId: String = "com.example.storekeeper", environment: String = "Sandbox", signedDate: Int64 = signedDate) -> String {
        """
        {"transactionId":"2000000123","originalTransactionId":"2000000100","bundleId":"\(bundleId)",\
        "productId":"com.example.storekeeper.monthly","type":"Auto-Renewable Subscription","quantity":1,\
        "purchaseDate":1748700000000,"expiresDate":1751378400000,"environment":"\(environment)","signedDate":\(signedDate)}
        """
    }

    static func renewal(environment: String = "Sandbox") -> String {
        """
        {"originalTransactionId":"2000000100","productId":"com.example.storekeeper.monthly","autoRenewStatus":1,\
        "environment":"\(environment)","signedDate":\(signedDate)}
        """
    }

    static func notification(_ part: String) -> String {
        """
        {"notificationType":"DID_RENEW","notificationUUID":"0c1bd5a2-52b4-4a0b-a2a7-2f4bb7c0f8a1","version":"2.0",\
        "signedDate":\(signedDate),\(part)}
        """
    }

    static func appTransaction(receiptType: String = "Sandbox", appAppleId: Int64 = 1234) -> String {
        """
        {"receiptType":"\(receiptType)","appAppleId":\(appAppleId),"bundleId":"com.example.storekeeper",\
        "applicationVersion":"1","receiptCreationDate":\(signedDate),"originalPurchaseDate":1700000000000}
        """
    }

    /// A Retention Messaging real-time request (no bundle id: only the app Apple id names the app).
    static func realtime(environment: String = "Sandbox", appAppleId: Int64 = 1234) -> String {
        """
        {"originalTransactionId":"2000000100","appAppleId":\(appAppleId),"productId":"com.example.storekeeper.monthly",\
        "userLocale":"en-US","requestIdentifier":"3db5c98d-8acf-4e29-831e-8e1f82f9f6e9","environment":"\(environment)",\
        "signedDate":\(signedDate)}
        """
    }

    /// A JWS from raw header and payload text, with a signature segment that verifies nothing.
    static func raw(header: String, payload: String, signature: String = "AAAA") -> String {
        base64URL(Data(header.utf8)) + "." + base64URL(Data(payload.utf8)) + "." + signature
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static let shared: Result<[ForgedInput], any Error> = Result { try make() }

    static func make() throws -> [ForgedInput] {
        let ca = try TestCertificateAuthority.generate(notBefore: caNotBefore, notAfter: caNotAfter)
        let foreign = try TestCertificateAuthority.generate(notBefore: caNotBefore, notAfter: caNotAfter, name: "Foreign")
        let unmarkedLeaf = try ca.reissuingLeaf(notBefore: caNotBefore, notAfter: caNotAfter, marker: false)
        let unmarkedIntermediate = try TestCertificateAuthority.generate(
            notBefore: caNotBefore, notAfter: caNotAfter, markers: .init(leaf: true, intermediate: false)
        )
        let expiredLeaf = try ca.reissuingLeaf(notBefore: caNotBefore, notAfter: Date(timeIntervalSince1970: 1_735_689_600))
        let futureLeaf = try ca.reissuingLeaf(notBefore: Date(timeIntervalSince1970: 1_767_225_600), notAfter: caNotAfter)

        let sandbox = ForgedInput.Configuration(roots: [ca.rootCertificateDER])
        let production = ForgedInput.Configuration(roots: [ca.rootCertificateDER], environment: .production, appAppleId: 1234)
        let unmarkedIntermediateRoots = ForgedInput.Configuration(roots: [unmarkedIntermediate.rootCertificateDER])
        let noRoots = ForgedInput.Configuration(roots: [])
        let xcode = ForgedInput.Configuration(roots: [], environment: .xcode)

        func signed(_ json: String, by authority: TestCertificateAuthority = ca, _ forgery: JWSForgery = .none) throws -> String {
            try authority.sign(jsonPayload: Data(json.utf8), forgery: forgery)
        }
        let honest = try signed(transaction())
        let chain = [ca.leafCertificateDER, ca.intermediateCertificateDER, ca.rootCertificateDER]
        let x5cHeader =
            #"{"alg":"ES256","x5c":["\#(chain[0].base64EncodedString())","\#(chain[1].base64EncodedString())","\#(chain[2].base64EncodedString())"]}"#

        var signatureLastCharFlipped = honest
        if let last = signatureLastCharFlipped.popLast() {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            let value = alphabet.firstIndex(of: last) ?? 0
            signatureLastCharFlipped.append(alphabet[value ^ 1])
        }

        typealias Row = (String, ForgedInput.Kind, ForgedInput.Configuration, String, String)
        let rows: [Row] = [
            // Honest data of every kind.
            ("valid transaction", .transaction, sandbox, honest, "ok"),
            ("valid renewal info", .renewal, sandbox, try signed(renewal()), "ok"),
            (
                "valid notification (data)", .notification, sandbox,
                try signed(notification(#""data":{"bundleId":"com.example.storekeeper","appAppleId":1234,"environment":"Sandbox"}"#)), "ok"
            ),
            (
                "valid notification (summary)", .notification, sandbox,
                try signed(
                    notification(#""summary":{"bundleId":"com.example.storekeeper","appAppleId":1234,"environment":"Sandbox","succeededCount":1}"#)),
                "ok"
            ),
            (
                "valid notification (SANDBOX external purchase token)", .notification, sandbox,
                try signed(
                    notification(
                        #""externalPurchaseToken":{"bundleId":"com.example.storekeeper","appAppleId":1234,"externalPurchaseId":"SANDBOX_b2158121"}"#)),
                "ok"
            ),
            (
                "valid notification (appData)", .notification, sandbox,
                try signed(notification(#""appData":{"bundleId":"com.example.storekeeper","appAppleId":1234,"environment":"Sandbox"}"#)), "ok"
            ),
            ("valid app transaction (checked at receiptCreationDate)", .appTransaction, sandbox, try signed(appTransaction()), "ok"),
            (
                "valid production notification", .notification, production,
                try signed(notification(#""data":{"bundleId":"com.example.storekeeper","appAppleId":1234,"environment":"Production"}"#)), "ok"
            ),
            ("valid production app transaction", .appTransaction, production, try signed(appTransaction(receiptType: "Production")), "ok"),
            ("valid real-time request", .realtime, sandbox, try signed(realtime()), "ok"),
            ("valid production real-time request", .realtime, production, try signed(realtime(environment: "Production")), "ok"),
            ("other app Apple id in a sandbox real-time request", .realtime, sandbox, try signed(realtime(appAppleId: 999)), "ok"),
            (
                "wrong app Apple id (production real-time request)", .realtime, production,
                try signed(realtime(environment: "Production", appAppleId: 999)), "invalid_app_identifier"
            ),
            ("wrong environment (real-time request)", .realtime, sandbox, try signed(realtime(environment: "Production")), "invalid_environment"),
            ("real-time request signed by a foreign CA", .realtime, sandbox, try signed(realtime(), by: foreign), "verification_failure"),
            (
                "foreign root only in x5c[2] (ignored)", .transaction, sandbox,
                try signed(transaction(), JWSForgery(certificateChain: [chain[0], chain[1], foreign.rootCertificateDER])), "ok"
            ),
            (
                "other app Apple id outside production", .notification, sandbox,
                try signed(notification(#""data":{"bundleId":"com.example.storekeeper","appAppleId":999,"environment":"Sandbox"}"#)), "ok"
            ),

            // Misdirected data.
            ("wrong bundle (transaction)", .transaction, sandbox, try signed(transaction(bundleId: "com.example.other")), "invalid_app_identifier"),
            (
                "wrong bundle (notification)", .notification, sandbox,
                try signed(notification(#""data":{"bundleId":"com.example.other","appAppleId":1234,"environment":"Sandbox"}"#)),
                "invalid_app_identifier"
            ),
            (
                "wrong app Apple id (production notification)", .notification, production,
                try signed(notification(#""data":{"bundleId":"com.example.storekeeper","appAppleId":999,"environment":"Production"}"#)),
                "invalid_app_identifier"
            ),
            (
                "wrong app Apple id (production app transaction)", .appTransaction, production,
                try signed(appTransaction(receiptType: "Production", appAppleId: 999)), "invalid_app_identifier"
            ),
            ("notification without app parts", .notification, sandbox, try signed(notification(#""version":"2.0""#)), "invalid_app_identifier"),
            ("wrong environment (transaction)", .transaction, sandbox, try signed(transaction(environment: "Production")), "invalid_environment"),
            ("wrong environment (renewal info)", .renewal, sandbox, try signed(renewal(environment: "Production")), "invalid_environment"),
            ("unknown environment", .transaction, sandbox, try signed(transaction(environment: "Staging")), "invalid_environment"),
            (
                "production external purchase token in sandbox", .notification, sandbox,
                try signed(
                    notification(#""externalPurchaseToken":{"bundleId":"com.example.storekeeper","appAppleId":1234,"externalPurchaseId":"b2158121"}"#)
                ), "invalid_environment"
            ),
            (
                "wrong environment (app transaction)", .appTransaction, sandbox, try signed(appTransaction(receiptType: "Production")),
                "invalid_environment"
            ),

            // Forged chains and signatures.
            ("leaf without receipt signing marker", .transaction, sandbox, try signed(transaction(), by: unmarkedLeaf), "verification_failure"),
            (
                "intermediate without WWDR marker", .transaction, unmarkedIntermediateRoots, try signed(transaction(), by: unmarkedIntermediate),
                "verification_failure"
            ),
            (
                "two certificates", .transaction, sandbox, try signed(transaction(), JWSForgery(certificateChain: Array(chain[0...1]))),
                "invalid_chain_length"
            ),
            (
                "four certificates", .transaction, sandbox, try signed(transaction(), JWSForgery(certificateChain: chain + [chain[2]])),
                "invalid_chain_length"
            ),
            ("one certificate", .transaction, sandbox, try signed(transaction(), JWSForgery(certificateChain: [chain[0]])), "invalid_chain_length"),
            ("no x5c", .transaction, sandbox, try signed(transaction(), JWSForgery(omitsCertificateChain: true)), "verification_failure"),
            ("empty x5c", .transaction, sandbox, try signed(transaction(), JWSForgery(certificateChain: [])), "verification_failure"),
            ("foreign root", .transaction, sandbox, try signed(transaction(), by: foreign), "verification_failure"),
            (
                "foreign signing key", .transaction, sandbox, try signed(transaction(), JWSForgery(signingKey: P256.Signing.PrivateKey())),
                "verification_failure"
            ),
            (
                "tampered payload", .transaction, sandbox,
                try signed(transaction(), JWSForgery(tamperedPayload: Data(transaction(bundleId: "com.example.storekeeper ").utf8))),
                "verification_failure"
            ),
            ("alg none", .transaction, sandbox, try signed(transaction(), JWSForgery(algorithm: "none")), "verification_failure"),
            ("alg ES384", .transaction, sandbox, try signed(transaction(), JWSForgery(algorithm: "ES384")), "verification_failure"),
            ("expired leaf at signedDate", .transaction, sandbox, try signed(transaction(), by: expiredLeaf), "verification_failure"),
            ("not-yet-valid leaf at signedDate", .transaction, sandbox, try signed(transaction(), by: futureLeaf), "verification_failure"),
            (
                "signedDate after the chain expired", .transaction, sandbox, try signed(transaction(signedDate: 1_900_000_000_000)),
                "verification_failure"
            ),
            (
                "signedDate before the chain existed", .transaction, sandbox, try signed(transaction(signedDate: 1_600_000_000_000)),
                "verification_failure"
            ),
            ("no root configured", .transaction, noRoots, honest, "invalid_certificate"),
            ("non-canonical signature encoding", .transaction, sandbox, signatureLastCharFlipped, "verification_failure"),

            // Garbage.
            ("empty string", .transaction, sandbox, "", "verification_failure"),
            ("a.b.c", .transaction, sandbox, "a.b.c", "verification_failure"),
            ("a.b.c.d", .transaction, sandbox, "a.b.c.d", "verification_failure"),
            ("two segments", .transaction, sandbox, String(honest[..<(honest.lastIndex(of: ".") ?? honest.endIndex)]), "verification_failure"),
            ("four segments", .transaction, sandbox, honest + ".AAAA", "verification_failure"),
            ("not base64", .transaction, sandbox, "!!!!.????.****", "verification_failure"),
            ("header is a JSON array", .transaction, sandbox, raw(header: "[1,2,3]", payload: transaction()), "verification_failure"),
            ("header is JSON null", .transaction, sandbox, raw(header: "null", payload: transaction()), "verification_failure"),
            ("header is not JSON", .transaction, sandbox, raw(header: "{alg:ES256", payload: transaction()), "verification_failure"),
            ("payload is a JSON array", .transaction, sandbox, raw(header: x5cHeader, payload: "[]"), "verification_failure"),
            (
                "huge payload", .transaction, sandbox, raw(header: x5cHeader, payload: String(repeating: "A", count: 2_000_000)),
                "verification_failure"
            ),
            (
                "x5c not base64", .transaction, sandbox, raw(header: #"{"alg":"ES256","x5c":["%%%","%%%","%%%"]}"#, payload: transaction()),
                "invalid_certificate"
            ),
            (
                "x5c not DER", .transaction, sandbox, raw(header: #"{"alg":"ES256","x5c":["AAAA","AAAA","AAAA"]}"#, payload: transaction()),
                "invalid_certificate"
            ),
            ("x5c of numbers", .transaction, sandbox, raw(header: #"{"alg":"ES256","x5c":[1,2,3]}"#, payload: transaction()), "invalid_certificate"),
            (
                "x5c is a 3-character string", .transaction, sandbox, raw(header: #"{"alg":"ES256","x5c":"abc"}"#, payload: transaction()),
                "invalid_certificate"
            ),
            (
                "x5c is a long string", .transaction, sandbox, raw(header: #"{"alg":"ES256","x5c":"abcdef"}"#, payload: transaction()),
                "invalid_chain_length"
            ),
            ("x5c is a number", .transaction, sandbox, raw(header: #"{"alg":"ES256","x5c":7}"#, payload: transaction()), "verification_failure"),
            ("alg missing", .transaction, sandbox, raw(header: #"{"x5c":["AAAA","AAAA","AAAA"]}"#, payload: transaction()), "verification_failure"),
            (
                "kid not a string", .transaction, sandbox,
                raw(header: #"{"alg":"ES256","kid":5,"x5c":["AAAA","AAAA","AAAA"]}"#, payload: transaction()), "verification_failure"
            ),
            (
                "b64 false", .transaction, sandbox,
                raw(header: #"{"alg":"ES256","b64":false,"crit":["b64"],"x5c":["AAAA","AAAA","AAAA"]}"#, payload: transaction()),
                "verification_failure"
            ),
            (
                "unknown critical header", .transaction, sandbox,
                raw(header: #"{"alg":"ES256","crit":["exp"],"x5c":["AAAA","AAAA","AAAA"]}"#, payload: transaction()), "verification_failure"
            ),
            (
                "signedDate not a number", .transaction, sandbox,
                raw(header: x5cHeader, payload: #"{"signedDate":"soon","bundleId":"com.example.storekeeper"}"#), "verification_failure"
            ),

            // Xcode (unsigned) data.
            (
                "Xcode transaction, not checked for a signature", .transaction, xcode,
                raw(header: #"{"alg":"ES256","kid":"Apple_Xcode_Key"}"#, payload: transaction(environment: "Xcode")), "ok"
            ),
            ("Xcode verifier, sandbox transaction", .transaction, xcode, honest, "invalid_environment"),
            ("Xcode verifier, garbage", .transaction, xcode, "a.b.c", "verification_failure"),
        ]
        return rows.map { ForgedInput(name: $0.0, kind: $0.1, configuration: $0.2, jws: $0.3, expected: $0.4) }
    }
}
