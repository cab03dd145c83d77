import ArgumentParser
import Foundation

/// `storekeeper jws verify FILE --type … --root … --bundle-id … --environment …`
struct JWSVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify one signed payload with Apple's rules and print the verdict as JSON.",
        discussion: """
            Prints {"valid": true|false, "reason": "<status>", "payload": {…}}; exits 0 when valid, \
            1 when invalid, 2 on usage errors or unreadable files.
            """
    )

    @Argument(help: "A file holding one compact JWS, or a JSON object with a signedPayload member.")
    var file: String

    @OptionGroup var verification: VerifierOptions

    @Flag(help: "Indent the JSON output.")
    var pretty = false

    func run() async throws {
        let jws = InputFile.compactJWS(in: try InputFile.read(file))
        let verifier = try verification.makeVerifier()
        let verdict = await SignedDataVerdict.verify(jws, kind: verification.type, verifier: verifier, now: try verification.instant())
        try JSONOutput.printObject(verdict.jsonObject, pretty: pretty)
        if !verdict.isValid {
            throw CLIFailure.invalidVerdict
        }
    }
}
