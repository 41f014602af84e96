//! Building a registry from command-line options, and the `sdk` and `tools` commands.

use std::process::ExitCode;

use clap::Args;
use ptc::{CodeConfig, CodeExecutor, ToolMode, ToolRegistry};

/// Options shared by every command that builds a registry.
#[derive(Args, Debug, Clone)]
pub struct PackArgs {
    /// Tool packs to load, comma-separated (available: testkit).
    #[arg(long = "tools", value_name = "PACKS", default_value = "")]
    pub packs: String,
    /// Workspace root that file and shell tools are confined to (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub root: Option<std::path::PathBuf>,
}

/// `ptc sdk` options.
#[derive(Args, Debug)]
pub struct SdkArgs {
    #[command(flatten)]
    packs: PackArgs,
    /// `code` prints the code-only guidance and declarations; `both` the SDK section.
    #[arg(long, value_name = "MODE", default_value = "both", value_parser = parse_code_mode)]
    mode: ToolMode,
}

/// `ptc tools` options.
#[derive(Args, Debug)]
pub struct ToolsArgs {
    #[command(flatten)]
    packs: PackArgs,
    /// How tools are offered to the model.
    #[arg(long, value_name = "MODE", default_value = "both", value_parser = parse_mode)]
    mode: ToolMode,
    /// Print the model-facing schemas as JSON instead of names.
    #[arg(long)]
    json: bool,
}

fn parse_mode(s: &str) -> Result<ToolMode, String> {
    s.parse()
}

fn parse_code_mode(s: &str) -> Result<ToolMode, String> {
    match s.parse()? {
        ToolMode::Native => Err("`sdk` needs a mode that has an SDK: code or both".into()),
        mode => Ok(mode),
    }
}

/// A registry with the packs loaded and code mode installed with `config`.
pub fn registry(packs: &PackArgs, config: CodeConfig) -> Result<ToolRegistry, String> {
    let registry = ToolRegistry::new();
    let mut ctx = ptc::packs::PackContext::default();
    if let Some(root) = &packs.root {
        ctx.root = root.clone();
    }
    ptc::packs::register_list(&registry, &packs.packs, &ctx).map_err(|e| e.to_string())?;
    CodeExecutor::new(config).install(&registry);
    Ok(registry)
}

/// `ptc sdk`.
pub fn sdk(args: SdkArgs) -> Result<ExitCode, String> {
    let registry = registry(&args.packs, CodeConfig::quickjs())?;
    registry.set_mode(args.mode);
    let (_, sections) = registry
        .model_input(None, None)
        .map_err(|e| e.to_string())?;
    for section in sections {
        print!("{}", section.text);
    }
    Ok(ExitCode::SUCCESS)
}

/// `ptc tools`.
pub fn tools(args: ToolsArgs) -> Result<ExitCode, String> {
    let registry = registry(&args.packs, CodeConfig::quickjs())?;
    registry.set_mode(args.mode);
    let (input, _) = registry
        .model_input(None, None)
        .map_err(|e| e.to_string())?;
    if args.json {
        let json = serde_json::to_string_pretty(&input.schemas).map_err(|e| e.to_string())?;
        println!("{json}");
    } else {
        for name in input.known_names {
            println!("{name}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
