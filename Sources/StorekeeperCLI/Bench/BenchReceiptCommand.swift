import ArgumentParser
import Foundation

/// `storekeeper bench receipt FILE [--root DER …] [--threads N]`
struct BenchReceiptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract: "Validate and decode one receipt repeatedly for at least 2 seconds and print the rate.",
        discussion: """
            Each operation is the whole offline validation: PKCS#7 parsing, the RSA signature, the \
            certificate chain at the receipt's creation date and the ASN.1 payload. Prints \
            {"operations", "seconds", "perSecond", "threads", "failures"}.
            """
    )

    @Argument(help: "A file holding a binary receipt or its base64 text.")
    var file: String

    @OptionGroup var receiptOptions: ReceiptOptions

    @OptionGroup var bench: BenchOptions

    func run() async throws {
        let data = try InputFile.read(file)
        let verifier = try receiptOptions.makeVerifier()
        let deviceIdentifier = try receiptOptions.deviceIdentifier()
        let now = Date()
        guard receiptOptions.check(data, verifier: verifier, deviceIdentifier: deviceIdentifier, now: now).receipt != nil else {
            throw CLIFailure(exitCode: CLIFailure.invalidExitCode, message: "\(file) does not validate; benchmark a valid receipt")
        }
        let runner = try bench.runner()
        let report = await runner.run(count: 1) { _ in
            verifier.verify(data, deviceIdentifier: deviceIdentifier, now: now).receipt != nil
        }
        try JSONOutput.print(report)
    }
}
