import AppStoreServerAPI
import ArgumentParser
import Foundation

/// `storekeeper offer sign`: the legacy promotional offer signature (base64 DER ECDSA over
/// Apple's U+2063-separated string), printed as JSON with every value StoreKit needs.
struct OfferSignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a promotional offer (the ECDSA signature StoreKit's promotional offer purchase option takes).",
        discussion: """
            Signs bundleId⁣keyId⁣productId⁣offerId⁣appAccountToken⁣nonce⁣timestamp with the key \
            of the .p8 file and prints {"signature", "keyId", "nonce", "timestamp", …} as JSON. \
            Without --nonce a fresh one is made; without --timestamp the current time is used.
            """
    )

    @Option(help: "The In-App Purchase key's .p8 file (PEM).")
    var key: String

    @Option(help: "The key's id in App Store Connect.")
    var keyId: String

    @Option(help: "The app's bundle id.")
    var bundleId: String

    @Option(help: "The subscription's product id.")
    var productId: String

    @Option(help: "The promotional offer's identifier in App Store Connect.")
    var offerId: String

    @Option(help: "The customer's app account token (a UUID; lower-cased when signed). Empty when omitted.")
    var appAccountToken: String = ""

    @Option(help: "A UUID used once (default: a new one).")
    var nonce: String?

    @Option(help: "Milliseconds since 1970 (default: now). Apple accepts the offer for 24 hours from it.")
    var timestamp: Int64?

    /// What the command prints.
    struct Output: Codable, Equatable {
        var signature: String
        var keyId: String
        var nonce: String
        var timestamp: Int64
        var bundleId: String
        var productId: String
        var offerId: String
        var appAccountToken: String
    }

    func run() async throws {
        try JSONOutput.print(makeOutput(now: Date(), newNonce: UUID()))
    }

    /// Signs with the given defaults for the nonce and timestamp.
    func makeOutput(now: Date, newNonce: UUID) throws(CLIFailure) -> Output {
        let pem = String(decoding: try InputFile.read(key), as: UTF8.self)
        let signingKey: InAppPurchaseKey
        do {
            signingKey = try InAppPurchaseKey(keyId: keyId, pem: pem)
        } catch {
            throw .usage("\(key): \(error.message)")
        }
        let nonceValue: UUID
        if let nonce {
            guard let parsed = UUID(uuidString: nonce) else { throw .usage("--nonce \(nonce) is not a UUID") }
            nonceValue = parsed
        } else {
            nonceValue = newNonce
        }
        if !appAccountToken.isEmpty, UUID(uuidString: appAccountToken) == nil {
            throw .usage("--app-account-token \(appAccountToken) is not a UUID")
        }
        let fields = PromotionalOfferSignature.Fields(
            bundleId: bundleId, keyId: keyId, productId: productId, offerId: offerId,
            appAccountToken: appAccountToken, nonce: nonceValue,
            timestamp: timestamp ?? Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))
        let signed: PromotionalOfferSignature
        do {
            signed = try PromotionalOfferSignature(fields: fields, key: signingKey)
        } catch {
            throw CLIFailure(exitCode: 1, message: error.message)
        }
        return Output(
            signature: signed.signature, keyId: keyId, nonce: nonceValue.uuidString.lowercased(),
            timestamp: fields.timestamp, bundleId: bundleId, productId: productId, offerId: offerId,
            appAccountToken: appAccountToken.lowercased())
    }
}
