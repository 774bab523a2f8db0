//! Every generated CUDA kernel compiles with NVRTC to PTX for compute
//! capabilities 8.0 and 9.0. Needs only NVRTC (no GPU, no driver): CI
//! installs it from the `nvidia-cuda-nvrtc-cu12` wheel (see `.ci/run`) and
//! sets `SHAPED_REQUIRE_NVRTC`, so that a missing library fails the test
//! there instead of skipping it.
#![cfg(feature = "cuda")]

use shaped::device::CudaError;
use shaped::device::cuda_kernels::{KernelSource, all_kernel_sources, compile_cubin, compile_ptx};

#[test]
fn every_kernel_compiles_for_sm80_and_sm90() {
    let all = all_kernel_sources();
    // Every op of the table for every element type it admits, and every
    // reduction: well over a hundred modules.
    assert!(all.len() > 150, "only {} kernel modules", all.len());
    let mut failures = Vec::new();
    let mut compiled = 0;
    for arch in [(8, 0), (9, 0)] {
        for k in &all {
            match compile_ptx(k, arch) {
                Ok(ptx) => {
                    for name in &k.kernels {
                        assert!(
                            ptx.contains(&format!(".entry {name}(")),
                            "{name} missing from the PTX of {}",
                            k.name
                        );
                    }
                    assert!(ptx.contains(&format!(".target sm_{}{}", arch.0, arch.1)));
                    compiled += 1;
                }
                Err(CudaError::Unavailable(why))
                    if std::env::var_os("SHAPED_REQUIRE_NVRTC").is_none() =>
                {
                    eprintln!("skipped: NVRTC not found ({why})");
                    return;
                }
                Err(e) => failures.push(format!("{arch:?}: {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(compiled, 2 * all.len());
    eprintln!("compiled {compiled} kernel modules");
}

#[test]
fn kernel_names_are_unique() {
    let all = all_kernel_sources();
    let mut names: Vec<_> = all.iter().flat_map(|k| k.kernels.iter()).collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n);
}

/// The vectorised variant really issues 16-byte loads and stores.
#[test]
fn vectorised_variant_uses_16_byte_accesses() {
    let all = all_kernel_sources();
    let add = all
        .iter()
        .find(|k| k.name == "sh_add_f32")
        .expect("sh_add_f32");
    match compile_ptx(add, (8, 0)) {
        Ok(ptx) => {
            let v = &ptx[ptx.find(".entry sh_add_f32_v32(").expect("v32 kernel")..];
            assert!(
                v.contains("ld.global.v4.f32") || v.contains("ld.v4.f32"),
                "no float4 load"
            );
            assert!(
                v.contains("st.global.v4.f32") || v.contains("st.v4.f32"),
                "no float4 store"
            );
        }
        Err(CudaError::Unavailable(why)) => eprintln!("skipped: NVRTC not found ({why})"),
        Err(e) => panic!("{e}"),
    }
}

/// Machine code too: NVRTC's assembler accepts every kernel for sm_80 and
/// sm_90 (what the driver would do with the PTX on such a GPU).
#[test]
fn every_kernel_assembles_to_cubin_for_sm80_and_sm90() {
    let all = all_kernel_sources();
    let mut failures = Vec::new();
    for arch in [(8, 0), (9, 0)] {
        for k in &all {
            match compile_cubin(k, arch) {
                Ok(cubin) => assert_eq!(
                    &cubin[..4],
                    b"\x7fELF",
                    "{} for sm_{}{}",
                    k.name,
                    arch.0,
                    arch.1
                ),
                Err(CudaError::Unavailable(why))
                    if std::env::var_os("SHAPED_REQUIRE_NVRTC").is_none() =>
                {
                    eprintln!("skipped: NVRTC not found ({why})");
                    return;
                }
                Err(e) => failures.push(format!("{arch:?}: {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The module of the C expression `expr` (its functions and leaves in
/// `g`) with results of C type `out`, as the CUDA backend builds it.
fn module_of(g: &shaped::backend::fused::CudaGen, out: &str, expr: &str) -> KernelSource {
    let (name, source) = g.module(out, expr);
    let kernels = shaped::backend::fused::FUSED_KERNELS
        .map(|v| format!("{name}_{v}"))
        .to_vec();
    KernelSource {
        name,
        source,
        kernels,
    }
}

/// The module a fused expression generates.
fn fused_module<E: shaped::backend::fused::Node>(e: &E) -> KernelSource {
    use shaped::backend::fused::{CudaExpr, CudaGen, c_name};
    use shaped::element::Element;
    let mut g = CudaGen::default();
    let expr = e.erased().cuda(&mut g, 0);
    module_of(&g, c_name(<E::Elem as Element>::NAME), &expr)
}

/// The module reducing a fused expression's rows by `r` in one pass.
fn reduction_module<E: shaped::backend::fused::Node>(
    e: &E,
    r: shaped::backend::op::Reduction,
) -> KernelSource {
    use shaped::backend::fused::{CudaExpr, CudaGen, c_name};
    use shaped::element::Element;
    let mut g = CudaGen::default();
    let expr = e.erased().cuda(&mut g, 0);
    let (name, source) = g.reduction_module(c_name(<E::Elem as Element>::NAME), &expr, r);
    KernelSource {
        kernels: vec![format!("{name}_rows")],
        name,
        source,
    }
}

/// The module of leaf `k`'s adjoint in a fused chain of `Var`s, as the
/// CUDA backward pass builds it.
fn adjoint_module<E>(e: &E, k: usize) -> KernelSource
where
    E: shaped::autograd::Adjoint<f32> + shaped::backend::fused::Node<Elem = f32>,
{
    let mut g = shaped::backend::fused::CudaGen::default();
    let expr = shaped::backend::fused::cuda_adjoint(&e.grad_expr(), k, &mut g);
    module_of(&g, "float", &expr)
}

/// Fused expressions' kernels (one module per expression, generated at
/// run time) compile for sm_80 and sm_90 too: the benchmark chains, `where`
/// over a comparison, integer and `bool` results, and the most leaves a
/// kernel takes.
#[test]
fn fused_kernels_compile_for_sm80_and_sm90() {
    use shaped::{Shape, Tensor};
    let a = Tensor::<f32, Shape![4, 4]>::ones();
    let b = Tensor::<f32, Shape![4]>::ones();
    let c = Tensor::<f32, Shape![4, 1]>::ones();
    let i = Tensor::<i64, Shape![4]>::ones();
    let d = Tensor::<f64, Shape![2]>::ones();
    let wide = d.lazy() + &d + &d + &d + &d + &d + &d + &d + &d + &d + &d + &d + &d + &d + &d;
    let modules = [
        fused_module((a.lazy() * &b + &c).relu().node()),
        fused_module(((a.lazy() * &b + &c).gelu() * &b - &c).node()),
        fused_module(
            a.lazy()
                .gt(&b)
                .select(a.lazy().exp(), c.lazy().clamp(-1.0f32, &b))
                .node(),
        ),
        fused_module((a.lazy() - 1.0f32).le(&c).node()),
        fused_module((i.lazy() * 3 - 5).abs().maximum(&i).node()),
        fused_module(wide.sigmoid().node()),
    ];
    // The backward kernels of fused chains of `Var`s: each input's adjoint,
    // its intermediate values bound in a lambda.
    let (x, w) = (
        shaped::autograd::Var::param(a.clone()),
        shaped::autograd::Var::param(b.clone()),
    );
    let chain = (x.lazy() * &w + 1.0f32).gelu() * &w;
    let select = x
        .lazy()
        .gt(&w)
        .select(x.lazy().tanh(), w.lazy().clamp(-1.0f32, 2.0f32));
    // The one-pass row reductions at the end of a chain: every reduction,
    // on floats, integers and doubles.
    use shaped::backend::op::Reduction;
    let reductions = [
        Reduction::Sum,
        Reduction::Mean,
        Reduction::Max,
        Reduction::Min,
        Reduction::Prod,
    ]
    .map(|r| reduction_module((a.lazy() * &b + &c).relu().node(), r))
    .into_iter()
    .chain([
        reduction_module((i.lazy() * 3 - 5).abs().node(), Reduction::Sum),
        reduction_module((d.lazy() * &d).exp().node(), Reduction::Mean),
    ]);
    let modules: Vec<KernelSource> = modules
        .into_iter()
        .chain(reductions)
        .chain((0..3).map(|k| adjoint_module(chain.node(), k)))
        .chain((0..5).map(|k| adjoint_module(select.node(), k)))
        .collect();
    for arch in [(8, 0), (9, 0)] {
        for k in &modules {
            match compile_cubin(k, arch) {
                Ok(cubin) => assert_eq!(&cubin[..4], b"\x7fELF"),
                Err(CudaError::Unavailable(why))
                    if std::env::var_os("SHAPED_REQUIRE_NVRTC").is_none() =>
                {
                    eprintln!("skipped: NVRTC not found ({why})");
                    return;
                }
                Err(e) => panic!("{arch:?}: {e}\n{}", k.source),
            }
            let ptx = compile_ptx(k, arch).unwrap();
            for name in &k.kernels {
                assert!(ptx.contains(&format!(".entry {name}(")), "{name}");
            }
        }
    }
}
