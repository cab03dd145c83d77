import AppStoreModels
import ArgumentParser
import Foundation

/// `storekeeper messaging images upload|list|delete`: the app's retention-message images.
struct MessagingImagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "images",
        abstract: "Upload, list and delete retention-message images (PNG, no transparency, 3840 px wide).",
        subcommands: [Upload.self, List.self, Delete.self]
    )

    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload a PNG; prints its identifier. Apple reviews it before messages may use it.")

        @OptionGroup var options: MessagingOptions

        @Option(help: "The PNG file.")
        var file: String

        @Option(help: "FULL_SIZE (3840 × 160–2160 px) or BULLET_POINT.")
        var size: String = "FULL_SIZE"

        @Option(help: "The image's identifier (a UUID); a new one when absent.")
        var id: String?

        func run() async throws {
            let identifier = try id.map { text throws(CLIFailure) in try MessagingOptions.uuid(text, option: "id") } ?? UUID()
            let imageSize = ImageSize(rawValue: size.uppercased())
            guard imageSize.isKnown else { throw CLIFailure.usage("--size must be FULL_SIZE or BULLET_POINT") }
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIFailure.usage("cannot read \(file)") }
            try await options.call { try await $0.uploadImage(imageIdentifier: identifier, image: data, imageSize: imageSize) }
            try JSONOutput.print(["imageIdentifier": identifier.uuidString.lowercased(), "imageSize": imageSize.rawValue])
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the images with their review states.")

        @OptionGroup var options: MessagingOptions

        func run() async throws {
            let list = try await options.call { try await $0.getImageList() }
            try JSONOutput.print(GetImageListResponse(imageIdentifiers: list.imageIdentifiers ?? []))
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an image no message uses.")

        @OptionGroup var options: MessagingOptions

        @Option(help: "The image's identifier.")
        var id: String

        func run() async throws {
            let identifier = try MessagingOptions.uuid(id, option: "id")
            try await options.call { try await $0.deleteImage(imageIdentifier: identifier) }
            try JSONOutput.print(["deleted": identifier.uuidString.lowercased()])
        }
    }
}
