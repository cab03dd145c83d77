import AppStoreModels
import ArgumentParser
import Foundation

/// `storekeeper messaging realtime-url set|get|delete`: where Apple asks the app's server which
/// retention message to show.
struct MessagingRealtimeURLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "realtime-url",
        abstract: "Set, get and delete the real-time retention message URL (HTTPS).",
        subcommands: [Set.self, Get.self, Delete.self]
    )

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set the real-time URL.")

        @OptionGroup var options: MessagingOptions

        @Option(help: "The HTTPS URL of your real-time endpoint.")
        var url: String

        func run() async throws {
            let url = self.url
            try await options.call { try await $0.configureRealtimeURL(request: RealtimeUrlRequest(realtimeURL: url)) }
            try JSONOutput.print(["realtimeURL": url])
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the real-time URL.")

        @OptionGroup var options: MessagingOptions

        func run() async throws {
            let answer = try await options.call { try await $0.getRealtimeURL() }
            try JSONOutput.print(["realtimeURL": answer.realtimeURL ?? ""])
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the real-time URL.")

        @OptionGroup var options: MessagingOptions

        func run() async throws {
            try await options.call { try await $0.deleteRealtimeURL() }
            try JSONOutput.print(["deleted": "realtimeURL"])
        }
    }
}
