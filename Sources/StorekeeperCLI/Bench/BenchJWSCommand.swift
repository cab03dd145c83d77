import ArgumentParser
import Foundation

/// `storekeeper bench jws FILE --type … --root … --bundle-id … --environment … [--threads N]`
struct BenchJWSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jws",
        abstract: "Verify every JWS of a file (one per line), repeating it for at least 2 seconds, and print the rate.",
        discussion: """
            Prints {"operations": N, "seconds": S, "perSecond": R, "threads": T, "failures": F}. \
            Failures counts JWS that did not verify; the command exits 1 if there were any.
            """
    )

    @Argument(help: "A file holding one compact JWS per line.")
    var file: String

    @OptionGroup var verification: VerifierOptions

    @OptionGroup var bench: BenchOptions

    func run() async throws {
        let lines = InputFile.compactJWSLines(in: try InputFile.read(file))
        guard !lines.isEmpty else { throw CLIFailure.usage("\(file) holds no JWS") }
        let verifier = try verification.makeVerifier()
        let now = try verification.instant()
        let kind = verification.type
        let runner = try bench.runner()
        let report = await runner.run(count: lines.count) { index in
            switch kind {
            case .transaction: await verifier.verifyAndDecodeTransaction(lines[index], now: now).isValid
            case .renewal: await verifier.verifyAndDecodeRenewalInfo(lines[index], now: now).isValid
            case .notification: await verifier.verifyAndDecodeNotification(lines[index], now: now).isValid
            case .appTransaction: await verifier.verifyAndDecodeAppTransaction(lines[index], now: now).isValid
            }
        }
        try JSONOutput.print(report)
        if report.failures > 0 {
            throw CLIFailure(exitCode: CLIFailure.invalidExitCode, message: "\(report.failures) of \(report.operations) verifications failed")
        }
    }
}
