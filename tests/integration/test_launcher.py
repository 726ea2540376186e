"""The launcher itself: exit codes pass through, tool subcommands that are not
built yet fail clearly, every subcommand has --help."""

import json
import tempfile
import unittest
from pathlib import Path

from vlgpu_testlib import ROOT, launch


class LauncherTest(unittest.TestCase):
    def test_exit_code_is_the_programs(self):
        r = launch(["run", "--", "sh", "-c", "exit 7"], env_remove=["DISPLAY"])
        self.assertEqual(r.returncode, 7)

    def test_private_x_server_when_no_display(self):
        r = launch(["run", "--", "sh", "-c", 'echo "DISPLAY=$DISPLAY"'],
                   env_remove=["DISPLAY"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"DISPLAY=:\d+")

    def test_environment(self):
        r = launch(["run", "--headless", "--", "sh", "-c",
                    'echo "$GALLIUM_DRIVER $EGL_PLATFORM $LIBGL_ALWAYS_SOFTWARE '
                    '$__GLX_VENDOR_LIBRARY_NAME $LIBGL_DRIVERS_PATH"'],
                   env_remove=["GALLIUM_DRIVER"])
        self.assertEqual(r.returncode, 0, r.stderr)
        driver, platform, sw, vendor, dri = r.stdout.split()
        self.assertEqual((driver, platform, sw, vendor), ("vlgpu", "surfaceless", "true", "mesa"))
        self.assertEqual(Path(dri), ROOT / "build/mesa/src/gallium/targets/dri")
        self.assertTrue((Path(dri) / "swrast_dri.so").exists())

    def test_sanitized_mesa_build_preloads_the_asan_runtime(self):
        """VLGPU_MESA_BUILD points the launcher at another Mesa build; when that build has
        ASan (meson's b_sanitize), the program gets the ASan runtime preloaded first and the
        sanitizer options of docs/sanitizers.md; without it, neither."""
        for sanitize in ("address,undefined", "none"):
            with tempfile.TemporaryDirectory() as d:
                b = Path(d)
                for f in ("src/gallium/targets/dri/swrast_dri.so", "src/egl/50_mesa.json",
                          "meson-info/intro-buildoptions.json"):
                    (b / f).parent.mkdir(parents=True, exist_ok=True)
                    (b / f).touch()
                (b / "meson-info/intro-buildoptions.json").write_text(
                    json.dumps([{"name": "b_sanitize", "value": sanitize}]))
                r = launch(["run", "--headless", "--", "sh", "-c",
                            'echo "$LIBGL_DRIVERS_PATH|$LD_PRELOAD|$ASAN_OPTIONS"'],
                           env_update={"VLGPU_MESA_BUILD": d, "LD_PRELOAD": "",
                                       "ASAN_OPTIONS": ""})
                self.assertEqual(r.returncode, 0, r.stderr)
                dri, preload, options = r.stdout.strip().split("|")
                self.assertEqual(Path(dri), b / "src/gallium/targets/dri")
                if sanitize == "none":
                    self.assertEqual((preload, options), ("", ""))
                    continue
                self.assertRegex(Path(preload.split()[0]).name, r"^libasan\.so")
                self.assertTrue(Path(preload.split()[0]).exists(), preload)
                self.assertIn("detect_leaks=0", options.split(":"))
                self.assertIn(f"log_path={ROOT}/out/sanitize/report", options.split(":"))

    def test_every_subcommand_has_help(self):
        r = launch(["--help"])
        self.assertEqual(r.returncode, 0)
        for name in ["setup", "run", "test", "demo", "asm", "disasm", "cc", "replay",
                     "bench", "piglit", "glmark2", "report"]:
            with self.subTest(subcommand=name):
                h = launch([name, "--help"])
                self.assertEqual(h.returncode, 0, h.stderr)
                self.assertIn(f"usage: vlgpu {name}", h.stdout)

    def test_fuzz_passes_options_after_double_dash_to_libfuzzer(self):
        """`./vlgpu fuzz TARGET --seconds N -- -jobs=2` (docs/fuzzing.md): what follows
        `--` reaches libFuzzer whether the target comes before or after the options
        (argparse alone rejected it after an option). The command is replaced by a
        recorder, so nothing runs."""
        import importlib.machinery
        import importlib.util
        loader = importlib.machinery.SourceFileLoader("vlgpu_launcher_t", str(ROOT / "vlgpu"))
        m = importlib.util.module_from_spec(importlib.util.spec_from_loader("vlgpu_launcher_t",
                                                                            loader))
        loader.exec_module(m)
        seen = {}
        m.COMMANDS["fuzz"] = (lambda a: seen.update(vars(a)) or 0,) + m.COMMANDS["fuzz"][1:]
        for argv in (["fuzz", "dump", "--seconds", "7", "--keep-going", "--", "-jobs=2"],
                     ["fuzz", "--seconds", "7", "dump", "--", "-jobs=2"]):
            with self.subTest(argv=argv):
                seen.clear()
                self.assertEqual(m.main(argv), 0)
                self.assertEqual((seen["target"], seen["seconds"], seen["libfuzzer_args"]),
                                 ("dump", 7, ["-jobs=2"]))


if __name__ == "__main__":
    unittest.main()
