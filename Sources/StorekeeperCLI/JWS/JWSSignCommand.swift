import AppStoreModels
import AppStoreTestSigning
import ArgumentParser
import Foundation

/// `storekeeper jws sign`: sign test data with a test certificate authority shaped like Apple's.
struct JWSSignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a transaction, renewal info, notification or app transaction with a test CA.",
        discussion: """
            The CA lives in --ca DIR (created there if absent; trust DIR/root.der when verifying). \
            Without --payload, a realistic payload is made from the options: a new monthly \
            subscription, and for a notification a SUBSCRIBED/INITIAL_BUY one carrying it. \
            --forge spoils the result in one of the ways Apple's verifier refuses. Prints the \
            compact JWS on standard output.
            """
    )

    @Option(help: "Directory of the test certificate authority (created if it holds none).")
    var ca: String

    @Option(help: "The kind of signed data: transaction, renewal, notification or app-transaction.")
    var type: SignedDataKind

    @Option(help: "A JSON file with the payload to sign as is (its signedDate decides the validity checks).")
    var payload: String?

    @Option(help: "Bundle id of the generated payload.")
    var bundleId: String = "com.example.app"

    @Option(help: "Environment of the generated payload.")
    var environment: String = "Sandbox"

    @Option(help: "App Apple id of the generated notification or app transaction.")
    var appAppleId: Int64?

    @Option(help: "Product id of the generated transaction.")
    var productId: String = "com.example.app.monthly"

    @Option(help: "Subscription group of the generated transaction.")
    var subscriptionGroupIdentifier: String = "21000001"

    @Option(help: "Original transaction id of the generated transaction (random digits by default).")
    var originalTransactionId: String?

    @Option(help: "signedDate (ISO 8601) of the generated payload; now by default.")
    var signedDate: String?

    @Option(help: "Spoil the signature: \(ForgeryKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var forge: ForgeryKind?

    func run() async throws {
        let now = try instant()
        let authority = try loadOrCreateAuthority(now: now)
        let transactionId = originalTransactionId ?? String(UInt64.random(in: 2_000_000_000_000_000...2_999_999_999_999_999))
        let sample = SampleSignedData(
            bundleId: bundleId, environment: AppStoreEnvironment(rawValue: environment), appAppleId: appAppleId,
            productId: productId, subscriptionGroupIdentifier: subscriptionGroupIdentifier,
            originalTransactionId: transactionId, transactionId: transactionId, now: now
        )
        let json = try payloadJSON(sample: sample, authority: authority)
        let (signer, forgery) = try forge?.apply(to: authority, signedDate: now, payload: json) ?? (authority, .none)
        do {
            print(try signer.sign(jsonPayload: json, forgery: forgery))
        } catch {
            throw CLIFailure(exitCode: 1, message: "cannot sign: \(error)")
        }
    }

    private func payloadJSON(sample: SampleSignedData, authority: TestCertificateAuthority) throws -> Data {
        if let payload {
            let data = try InputFile.read(payload)
            guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
                throw CLIFailure.usage("\(payload) does not hold a JSON object")
            }
            return data
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        switch type {
        case .transaction:
            return try encoder.encode(sample.transaction)
        case .renewal:
            return try encoder.encode(sample.renewalInfo)
        case .appTransaction:
            return try encoder.encode(sample.appTransaction)
        case .notification:
            let notification = sample.notification(
                signedTransactionInfo: try authority.signTransaction(sample.transaction),
                signedRenewalInfo: try authority.signRenewalInfo(sample.renewalInfo)
            )
            return try encoder.encode(notification)
        }
    }

    private func loadOrCreateAuthority(now: Date) throws -> TestCertificateAuthority {
        let directory = URL(fileURLWithPath: ca)
        let rootFile = directory.appendingPathComponent(TestCertificateAuthority.FileName.rootCertificate)
        if FileManager.default.fileExists(atPath: rootFile.path) {
            do {
                return try TestCertificateAuthority.load(from: directory)
            } catch {
                throw CLIFailure.usage("cannot load the test CA in \(ca): \(error)")
            }
        }
        let year: TimeInterval = 365 * 24 * 3600
        let authority = try TestCertificateAuthority.generate(notBefore: now - year, notAfter: now + 10 * year)
        do {
            try authority.save(to: directory)
        } catch {
            throw CLIFailure.usage("cannot create the test CA in \(ca): \(error)")
        }
        Console.err(Data("storekeeper: created a test CA in \(ca); trust \(rootFile.path) to verify its signatures\n".utf8))
        return authority
    }

    /// The signedDate, in whole milliseconds as Apple signs them.
    private func instant() throws(CLIFailure) -> Date {
        var date = Date()
        if let signedDate {
            guard let parsed = try? Date(signedDate, strategy: .iso8601) else {
                throw .usage("--signed-date \(signedDate) is not an ISO 8601 date-time")
            }
            date = parsed
        }
        return Date(appStoreMilliseconds: date.appStoreMilliseconds)
    }
}
