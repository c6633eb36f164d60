

def test_subordination_laws_keep_the_generic_G_evaluator():
    """A subordination law's internal G-from-solution helper no longer shadows Law._G, which
    the generic routes (contour derivative, atoms, nested convolutions) call with one
    argument: before, ``⊠`` of a subordination law raised TypeError (missing 'z', 'st')."""
    import numpy as np

    from freeattn.convolution import free_multiplicative_convolution
    from freeattn.laws import MarchenkoPastur

    a = free_multiplicative_convolution(MarchenkoPastur(0.5), MarchenkoPastur(0.7),
                                        method="subordination")
    z = np.array([2.0 + 1.0j, 0.5 + 0.25j])
    np.testing.assert_allclose(a._G(z), a.cauchy_transform(z), rtol=1e-14)
    b = free_multiplicative_convolution(MarchenkoPastur(0.5), MarchenkoPastur(0.7))
    np.testing.assert_allclose(a._G(z), b.cauchy_transform(z), rtol=1e-10)
