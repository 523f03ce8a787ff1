"""The ``safebandits`` command group: its error discipline (one line, exit 2 for refused input, 1 for
failures), ``--plugin`` and ``--debug``, the subcommands imported when used (``study``, and the
entry-point group :data:`COMMANDS_GROUP`), and :func:`main`. The commands are in
:mod:`safebandits.cli.sweeps` and :mod:`safebandits.cli.stores`; see :mod:`safebandits.cli`."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from safebandits.exceptions import ConfigError, SafeBanditsError

__all__ = ["COMMANDS_GROUP", "cli", "main"]

#: The entry-point group of commands other packages add (a paper's own tools), imported on first use.
COMMANDS_GROUP = "safebandits.commands"


#: Subcommands defined in other modules, imported only when used: name -> (module, attribute, short help).
#: Their short help is given here so that ``safebandits --help`` does not import them.
_LAZY_COMMANDS = {
    "study": ("safebandits.study.cli", "study", "Persistent ask / tell studies stored in a database..."),
}


def _load_plugins(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """Callback of every ``--plugin`` option: import the modules now (before the command runs)."""
    if value and not ctx.resilient_parsing:
        from safebandits.plugins import load_plugins

        try:
            load_plugins(value)
        except ConfigError as exc:
            raise click.BadParameter(str(exc), ctx=ctx, param=param) from None
    return value


def _plugin_option(envvar: str | None = None, where: str = "before") -> click.Option:
    return click.Option(
        ["--plugin", "plugins"],
        multiple=True,
        envvar=envvar,
        metavar="MODULE",
        expose_value=False,
        is_eager=True,
        callback=_load_plugins,
        help="Import MODULE first (registers extra learners, instances or experiments); the current folder "
        f"is searched and worker processes import it too. Repeatable; also accepted {where} the subcommand.",
    )


def _with_plugin_option(command: click.Command) -> click.Command:
    """Add ``--plugin`` to ``command`` and to its subcommands (``safebandits run ... --plugin m``)."""
    if not any(p.name == "plugins" for p in command.params):
        command.params.append(_plugin_option())
    for sub in getattr(command, "commands", {}).values():
        _with_plugin_option(sub)
    return command


def _one_line(text: object, ctx: click.Context | None = None) -> str:
    """``text`` on one line, without the credentials of any storage URL given to the command."""
    line = " ".join(str(text).split())
    if ctx is None:
        return line
    from safebandits.study.redact import redact_text

    return redact_text(line, *_storage_urls(ctx))


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush after a broken pipe says nothing (the
    recipe of Python's signal documentation, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # (no real stdout, e.g. under a test runner)
        pass


def _storage_urls(ctx: click.Context) -> list[str]:
    """The storage URLs of this command line and of ``SAFEBANDITS_STORAGE`` (to redact from errors)."""
    args = [*ctx.meta.get("safebandits.argv", []), *sys.argv[1:]]
    urls = [os.environ.get("SAFEBANDITS_STORAGE", "")]
    for i, arg in enumerate(args):
        if arg == "--storage" and i + 1 < len(args):
            urls.append(args[i + 1])
        elif arg.startswith("--storage="):
            urls.append(arg.partition("=")[2])
    return [u for u in urls if u]


def _entry_commands() -> dict[str, Any]:
    """The entry points of :data:`COMMANDS_GROUP` by command name, built-in names left out (read from the
    installed distributions' metadata once; nothing imported)."""
    global _ENTRY_COMMANDS
    if _ENTRY_COMMANDS is None:
        from importlib.metadata import entry_points

        _ENTRY_COMMANDS = {
            ep.name: ep
            for ep in sorted(entry_points(group=COMMANDS_GROUP), key=lambda e: e.value)
            if ep.name not in _LAZY_COMMANDS and ep.name not in cli.commands
        }
    return _ENTRY_COMMANDS


_ENTRY_COMMANDS: dict[str, Any] | None = None


def _load_entry_command(ep: Any) -> click.Command:
    """The command an entry point of :data:`COMMANDS_GROUP` names; a failure names the entry point."""
    try:
        command = ep.load()
    except Exception as exc:  # (any failure of another package's code: reported with its origin)
        raise ConfigError(
            f"The command {ep.name!r} (entry point {ep.value!r} of group {COMMANDS_GROUP!r}) failed to "
            f"import: {type(exc).__name__}: {exc}"
        ) from exc
    if not isinstance(command, click.Command):
        raise ConfigError(
            f"The entry point {ep.value!r} of group {COMMANDS_GROUP!r} names {type(command).__name__}, not "
            "a click command."
        )
    return command


class _Group(click.Group):
    """Click group with one error discipline: a one-line message, exit 2 for refused input, 1 for
    failures; the traceback only with ``--debug`` (or ``SAFEBANDITS_DEBUG=1``).

    Subcommands of :data:`_LAZY_COMMANDS` and of the entry-point group :data:`COMMANDS_GROUP` are
    imported on first use (a built-in name wins), and every subcommand accepts ``--plugin``.
    """

    def invoke(self, ctx: click.Context) -> Any:
        debug = ctx.meta.get("safebandits.debug") or os.environ.get("SAFEBANDITS_DEBUG", "") not in ("", "0")
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:  # one line, with where to read the usage
            if debug or exc.ctx is None:
                raise
            click.echo(
                f"Error: {_one_line(exc.format_message(), ctx)} (see `{exc.ctx.command_path} --help`).",
                err=True,
            )
            ctx.exit(exc.exit_code)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except SafeBanditsError as exc:
            if debug:
                raise
            click.echo(f"Error: {_one_line(exc, ctx)}", err=True)
            ctx.exit(getattr(exc, "exit_code", 2))
        except BrokenPipeError:  # the reader of stdout stopped (`safebandits list | head`): not an error
            _silence_stdout()
            ctx.exit(0)
        except OSError as exc:  # a path given on the command line: missing folder, read-only, disk full
            if debug:
                raise
            import errno

            where = f" {exc.filename!r}" if exc.filename else ""
            full = exc.errno in (errno.ENOSPC, errno.EIO, getattr(errno, "EDQUOT", -1))
            click.echo(f"Error: cannot use{where}: {_one_line(exc.strerror or exc, ctx)}.", err=True)
            ctx.exit(1 if full else 2)
        except RecursionError:
            if debug:
                raise
            click.echo("Error: an input is nested too deeply to be read.", err=True)
            ctx.exit(2)
        except MemoryError as exc:  # (the last line: the cost estimates refuse what they know first)
            if debug:
                raise
            click.echo(
                f"Error: the input is too large for this machine's memory ({_one_line(exc, ctx)[:200]}); "
                "make the problem smaller (docs/limits.md).",
                err=True,
            )
            ctx.exit(2)
        except Exception as exc:
            if debug:
                raise
            click.echo(
                f"Error: internal error ({type(exc).__name__}: {_one_line(exc, ctx)[:300]}). Rerun with "
                "`safebandits --debug ...` for the traceback and report it.",
                err=True,
            )
            ctx.exit(1)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["safebandits.argv"] = list(args)  # (the storage URLs to redact from errors)
        return super().parse_args(ctx, args)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        super().add_command(_with_plugin_option(cmd), name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_LAZY_COMMANDS, *_entry_commands()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            if cmd_name in _LAZY_COMMANDS:
                module, attr, _ = _LAZY_COMMANDS[cmd_name]
                self.add_command(getattr(importlib.import_module(module), attr), cmd_name)
            elif cmd_name in _entry_commands():
                self.add_command(_load_entry_command(_entry_commands()[cmd_name]), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            if name in _LAZY_COMMANDS and name not in self.commands:
                rows.append((name, _LAZY_COMMANDS[name][2]))
                continue
            if name in _entry_commands() and name not in self.commands:
                module = _entry_commands()[name].module
                rows.append((name, f"A command of {module}."))
                continue
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl(
                    [(n, c if isinstance(c, str) else c.get_short_help_str(limit)) for n, c in rows]
                )


def _set_debug(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta["safebandits.debug"] = True


def _version() -> str:
    from safebandits._version import __version__

    return __version__


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(_version(), "--version", "-V", prog_name="safebandits", message="%(prog)s %(version)s")
def cli() -> None:
    """Bandits with unknown constraints: run the papers' experiments and check their claims.

    Exit status: 0 success; 1 the command ran but failed (runs failed, a database write failed, an
    internal error); 2 a usage or input error (one line naming it; nothing written).
    """


cli.params.append(_plugin_option(envvar="SAFEBANDITS_PLUGINS", where="after"))


cli.params.append(
    click.Option(
        ["--debug"],
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_set_debug,
        help="Show the traceback of an error (also SAFEBANDITS_DEBUG=1).",
    )
)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``safebandits`` command."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        cli.main(args=argv, prog_name="safebandits", standalone_mode=True)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 1
    return 0
