/*
 * vlgpu simulator: test hooks of the vlgpu_drm.h device (device.cpp).
 * Not part of the C interface and never set outside tests.
 */
#pragma once

namespace vlgpu::sim {

/**
 * Tests only: @hook (NULL: none) is called at the start of the body of every
 * vlgpu_drm.h entry point that runs inside the device's exception guard, with
 * the entry point's name ("vlg_drm_submit", ...), after its argument checks.
 * Whatever it throws must come back as that entry point's error result
 * (-ENOMEM for std::bad_alloc, -EIO otherwise, the reason in
 * vlg_drm_get_fault; NULL from vlg_drm_bo_map; {"error": ...} from the
 * statistics; the err text of vlg_drm_device_create), never as an exception.
 * Process-wide, not thread-safe: set it while no device call runs.
 */
void set_device_entry_hook_for_tests(void (*hook)(const char *entry));

} // namespace vlgpu::sim
