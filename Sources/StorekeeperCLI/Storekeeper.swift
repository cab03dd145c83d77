import ArgumentParser
import Foundation
import StorekeeperApps

/// The `storekeeper` command: verification, decoding and benchmarking tools for Apple's signed
/// data, and the subscription engine's report.
///
/// Exit codes: 0 success (a valid verdict), 1 a negative verdict (invalid data), 2 a usage error
/// or an unreadable input file.
public struct Storekeeper: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "storekeeper",
        abstract: "A self-hosted subscription backend for App Store apps.",
        version: BuildInfo.current.description,
        subcommands: [
            JWSCommand.self,
            ReceiptCommand.self,
            StatusCommand.self,
            BenchCommand.self,
            ServeCommand.self,
            MigrateCommand.self,
            BackupCommand.self, RestoreCommand.self,
            UserCommand.self,
            MetricsCommand.self,
            AnalyticsCommand.self,
            OfferCommand.self,
            DemoCommand.self,
            SimulateCommand.self,
            SimulatorCommand.self,
            DeviceCommand.self,
            ExperimentCommand.self,
            ImportCommand.self,
            CompareCommand.self,
            MessagingCommand.self,
            DoctorCommand.self,
            HealthCommand.self,
        ]
    )

    public init() {}

    /// Parses the process arguments, runs the chosen command and exits with Storekeeper's exit
    /// codes (ArgumentParser's own usage errors become 2).
    public static func runFromCommandLine(_ arguments: [String]? = nil) async -> Never {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Foundation.exit(0)
        } catch let error as CLIFailure {
            if !error.message.isEmpty {
                Console.err(Data("storekeeper: \(error.message)\n".utf8))
            }
            Foundation.exit(error.exitCode)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Foundation.exit(0)
            }
            if !message.isEmpty {
                Console.err(Data("\(message)\n".utf8))
            }
            // Every ArgumentParser error other than an explicit ExitCode is a usage error.
            Foundation.exit(error is ExitCode ? code.rawValue : CLIFailure.usageExitCode)
        }
    }
}
