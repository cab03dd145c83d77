import AppStoreModels
import ArgumentParser
import Foundation

/// `storekeeper messaging performance-test start|result`: Apple's test of the real-time URL,
/// which must pass before Apple calls it.
struct MessagingPerformanceTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "performance-test",
        abstract: "Start Apple's performance test of the real-time URL and read its result.",
        subcommands: [Start.self, Result.self]
    )

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a test; prints its parameters and request id.")

        @OptionGroup var options: MessagingOptions

        @Option(help: "A sandbox subscription's original transaction id, used in the test's requests.")
        var originalTransactionId: String

        func run() async throws {
            let chain = originalTransactionId
            let started = try await options.call {
                try await $0.initiatePerformanceTest(request: PerformanceTestRequest(originalTransactionId: chain))
            }
            try JSONOutput.print(started)
        }
    }

    struct Result: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a test's result; exits 1 when the endpoint failed, 0 when it passed or the test is still pending.")

        @OptionGroup var options: MessagingOptions

        @Option(help: "The request id `start` printed.")
        var requestId: String

        func run() async throws {
            let id = requestId
            let result = try await options.call { try await $0.getPerformanceTestResults(requestId: id) }
            try JSONOutput.print(result)
            if result.result == .fail {
                throw CLIFailure(exitCode: MessagingFailure.refusedExitCode, message: "the real-time URL failed the performance test")
            }
        }
    }
}
