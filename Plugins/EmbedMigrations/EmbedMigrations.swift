import Foundation
import PackagePlugin

/// Embeds the package's top-level `Migrations/*.sql` into the target as generated Swift source.
///
/// SwiftPM will not bundle a folder outside a target as a resource, and an app that embeds
/// SessionVault ships no Migrations folder, so the schema has to be compiled in.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let migrations = context.package.directoryURL.appending(path: "Migrations")
        let sqlFiles = (try? FileManager.default.contentsOfDirectory(atPath: migrations.path)) ?? []
        let inputs = sqlFiles.filter { $0.hasSuffix(".sql") }.sorted().map { migrations.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations+Files.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) migrations",
                executable: try context.tool(named: "MigrationEmbedder").url,
                arguments: [migrations.path, output.path],
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
