import AppStoreVerification
import ArgumentParser
import Foundation

/// What a receipt is checked against: trusted roots, device and app.
struct ReceiptOptions: ParsableArguments {
    @Option(
        name: .customLong("root"),
        help:
            "A trusted root certificate (DER file). Repeatable. Default: the Apple Inc. Root Certificate. Add Xcode's StoreKit certificate for local StoreKit Testing receipts."
    )
    var roots: [String] = []

    @Option(help: "The device identifier (identifierForVendor UUID) the receipt's hash must match.")
    var deviceId: String?

    @Option(help: "The bundle id the receipt must belong to.")
    var bundleId: String?

    func makeVerifier() throws(CLIFailure) -> ReceiptVerifier {
        var rootCertificates: [Data] = []
        for path in roots {
            rootCertificates.append(try InputFile.read(path))
        }
        do {
            return rootCertificates.isEmpty ? try ReceiptVerifier() : try ReceiptVerifier(rootCertificates: rootCertificates)
        } catch {
            throw .usage(error.description)
        }
    }

    func deviceIdentifier() throws(CLIFailure) -> UUID? {
        guard let deviceId else { return nil }
        guard let uuid = UUID(uuidString: deviceId) else {
            throw .usage("--device-id \(deviceId) is not a UUID")
        }
        return uuid
    }

    /// The verifier's result, with a receipt of another app turned into a 21003 rejection.
    func check(_ receipt: Data, verifier: ReceiptVerifier, deviceIdentifier: UUID?, now: Date) -> ReceiptValidationResult {
        let result = verifier.verify(receipt, deviceIdentifier: deviceIdentifier, now: now)
        if let bundleId, let decoded = result.receipt, decoded.bundleId != bundleId {
            return .invalid(
                status: .notAuthenticated,
                reason: "the receipt belongs to \(decoded.bundleId), not \(bundleId)"
            )
        }
        return result
    }
}
