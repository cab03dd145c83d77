import AppStoreVerification
import ArgumentParser
import Foundation

/// `storekeeper receipt decode FILE [--root DER …] [--device-id UUID] [--bundle-id ID]`
struct ReceiptDecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Validate a receipt and print the response Apple's verifyReceipt would give for it.",
        discussion: """
            FILE holds a binary receipt or its base64 text. Prints {"status": 0, "environment": …, \
            "receipt": {…}} with Apple's field names and formats; a rejected receipt prints \
            {"status": <Apple's code>} (21002 malformed, 21003 not authenticated, …), the reason \
            on standard error, and exits 1. Usage errors and unreadable files exit 2.
            """
    )

    @Argument(help: "A file holding a binary receipt or its base64 text.")
    var file: String

    @OptionGroup var receiptOptions: ReceiptOptions

    @Flag(help: "Indent the JSON output.")
    var pretty = false

    func run() async throws {
        let data = try InputFile.read(file)
        let verifier = try receiptOptions.makeVerifier()
        let now = Date()
        let result = receiptOptions.check(data, verifier: verifier, deviceIdentifier: try receiptOptions.deviceIdentifier(), now: now)
        try JSONOutput.print(result.verifyReceiptResponse(now: now), pretty: pretty)
        if let reason = result.reason {
            throw CLIFailure(exitCode: CLIFailure.invalidExitCode, message: "status \(result.status.rawValue): \(reason)")
        }
    }
}
