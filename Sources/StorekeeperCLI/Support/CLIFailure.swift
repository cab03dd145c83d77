/// A failure the command line reports with a message on standard error and an exit code.
struct CLIFailure: Error, CustomStringConvertible {
    /// Exit code of a negative verdict: the input was read but is not valid.
    static let invalidExitCode: Int32 = 1
    /// Exit code of a usage error or an unreadable input.
    static let usageExitCode: Int32 = 2

    var exitCode: Int32
    var message: String

    static func usage(_ message: String) -> CLIFailure {
        CLIFailure(exitCode: usageExitCode, message: message)
    }

    /// A negative verdict already printed on standard output: exit 1 with no further message.
    static let invalidVerdict = CLIFailure(exitCode: invalidExitCode, message: "")

    var description: String { message }
}
